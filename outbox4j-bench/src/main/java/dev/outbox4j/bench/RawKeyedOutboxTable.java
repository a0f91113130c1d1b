package dev.outbox4j.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/**
 * Experiment for issue 14, target 2: what numbering a keyed row at commit costs a writer, in two hand-written designs
 * on the raw outbox table. Both take the number from a per-key counter row in a deferred constraint trigger, so the
 * key's lock is held only while committing and numbers follow commit order, as outbox4j's PostgreSQL schema does.
 * <ul>
 *   <li>{@link Numbering#ROW_UPDATE}: the trigger writes the number into the new row itself (outbox4j's design):
 *       a second version of the wide row, indexed by {@code (ordering_key, key_seq)}, so never a HOT update;
 *   <li>{@link Numbering#SIDE_TABLE}: the trigger inserts {@code (seq, ordering_key, key_seq)} into a narrow table
 *       with that index, and the wide row is written once.
 * </ul>
 */
final class RawKeyedOutboxTable {
  /** Where the commit-time number goes. */
  enum Numbering {
    ROW_UPDATE,
    SIDE_TABLE
  }

  private final RawOutboxTable table;
  private final Numbering numbering;

  RawKeyedOutboxTable(String name, Numbering numbering) {
    this.table = new RawOutboxTable(name);
    this.numbering = numbering;
  }

  void create(BenchDatabase database) throws SQLException {
    table.create(database);
    String name = table.name();
    database.execute(
        "DROP TABLE IF EXISTS " + name + "_key",
        "DROP TABLE IF EXISTS " + name + "_number",
        "CREATE TABLE " + name + "_key (ordering_key VARCHAR(255) PRIMARY KEY, last_seq BIGINT NOT NULL)");
    if (numbering == Numbering.ROW_UPDATE) {
      database.execute(
          "ALTER TABLE " + name + " ADD COLUMN key_seq BIGINT",
          "CREATE INDEX " + name + "_ix_key ON " + name + " (ordering_key, key_seq) WHERE ordering_key IS NOT NULL",
          numberingFunction(name, "UPDATE " + name + " SET key_seq = allocated WHERE id = NEW.id"));
    } else {
      database.execute(
          "CREATE TABLE " + name + "_number (seq BIGINT PRIMARY KEY, ordering_key VARCHAR(255) NOT NULL,"
              + " key_seq BIGINT NOT NULL)",
          "CREATE INDEX " + name + "_ix_key ON " + name + "_number (ordering_key, key_seq)",
          numberingFunction(name, "INSERT INTO " + name + "_number VALUES (NEW.seq, NEW.ordering_key, allocated)"));
    }
    database.execute(
        "CREATE CONSTRAINT TRIGGER " + name + "_tg_number AFTER INSERT ON " + name
            + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL)"
            + " EXECUTE FUNCTION " + name + "_number()");
  }

  /** The trigger function: takes the key's next number from its counter row, then {@code store}s it. */
  private static String numberingFunction(String name, String store) {
    return "CREATE OR REPLACE FUNCTION " + name + "_number() RETURNS trigger LANGUAGE plpgsql AS $$"
        + " DECLARE allocated BIGINT; BEGIN"
        + " INSERT INTO " + name + "_key AS k VALUES (NEW.ordering_key, 1)"
        + " ON CONFLICT (ordering_key) DO UPDATE SET last_seq = k.last_seq + 1 RETURNING k.last_seq INTO allocated;"
        + " " + store + "; RETURN NULL; END $$";
  }

  /**
   * Empties the tables, without analysing them: statistics taken of an empty table make PostgreSQL plan the trigger's
   * {@code UPDATE ... WHERE id = ?} as a sequential scan until the next analyse (see docs/benchmark-findings.md,
   * "Keyed writes").
   */
  void reset(BenchDatabase database) throws SQLException {
    String name = table.name();
    database.execute("TRUNCATE " + name + ", " + name + "_key"
        + (numbering == Numbering.SIDE_TABLE ? ", " + name + "_number" : ""));
  }

  /** Inserts one keyed pending row on the caller's connection, inside the caller's transaction. */
  void insert(Connection connection, String key) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table.name()
        + " (id, destination, ordering_key, payload, headers) VALUES (?, ?, ?, ?, ?)")) {
      insert.setObject(1, UUID.randomUUID());
      insert.setString(2, Payloads.DESTINATION);
      insert.setString(3, key);
      insert.setBytes(4, Payloads.bytes());
      insert.setString(5, "{}");
      insert.executeUpdate();
    }
  }
}
