package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxException;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import javax.sql.DataSource;

/**
 * When PostgreSQL numbers a keyed entry within its key: at commit (the schema's default) or at insert (opt-in, for
 * writers that run at SERIALIZABLE). Both take the key's row lock and then the next value of the outbox sequence, and
 * the lock lasts until the transaction ends, so a key's numbers follow its commit order either way; what differs is
 * what each costs the writers.
 *
 * <ul>
 *   <li><b>{@link KeyNumbering#AT_COMMIT}</b>: a deferred constraint trigger (migration V1, its function V12) locks
 *       the key at commit and writes the number back into the row it inserted ({@code UPDATE … WHERE id = …}). The lock
 *       is held only while the transaction commits. Under SERIALIZABLE that write-back reads the primary key's last
 *       index page, which every concurrent insert of time-ordered ids writes: PostgreSQL's serializable checks see
 *       read/write dependencies between writers that share nothing else, and refuse about half of the keyed writers'
 *       commits with {@code 40001} under contention (docs/schema.md, "Writers at SERIALIZABLE").
 *   <li><b>{@link KeyNumbering#AT_INSERT}</b>: a {@code BEFORE INSERT} row trigger locks the key and sets the number
 *       in the row being inserted; nothing is written back. A second writer of the same key waits at its insert until
 *       the first one's transaction ends (as on MariaDB/MySQL, whose schema numbers this way), instead of only while
 *       it commits. Like the default, it makes the entry available no earlier than the late-copy bound its key kept
 *       from a discarded entry (V14).
 * </ul>
 *
 * <p>Both variants use the one trigger name, so an outbox table has exactly one numbering at any time. Switching
 * drops and creates the trigger in one transaction, which waits for the transactions that inserted into the table to
 * end: no transaction is numbered by both or by neither. The functions are created with the table names' prefix and
 * schema; nothing is interpolated but validated names.
 *
 * <p>Immutable and thread-safe.
 */
final class PostgresKeyNumbering {
  private final DataSource dataSource;
  private final TableNames names;

  PostgresKeyNumbering(DataSource dataSource, TableNames names) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.names = Objects.requireNonNull(names, "names");
  }

  /** @return the statements that number keys at insert, in order, for these table names */
  List<String> atInsertStatements() {
    String lockKey = "SELECT k.late_copies_until INTO bound FROM " + names.qualified("outbox_key")
        + " k WHERE k.ordering_key = NEW.ordering_key FOR UPDATE;\n";
    return List.of(
        "CREATE OR REPLACE FUNCTION " + atInsertFunction() + "() RETURNS trigger LANGUAGE plpgsql\n"
            + "  SET enable_seqscan = off AS $$\n"
            + "DECLARE\n"
            + "  bound TIMESTAMPTZ;\n"
            + "BEGIN\n"
            + "  " + lockKey
            + "  IF NOT FOUND THEN\n"
            + "    INSERT INTO " + names.qualified("outbox_key") + " (ordering_key) VALUES (NEW.ordering_key)"
            + " ON CONFLICT (ordering_key) DO NOTHING;\n"
            + "    IF NOT FOUND THEN\n"
            + "      " + lockKey
            + "    END IF;\n"
            + "  END IF;\n"
            + "  NEW.key_seq := nextval('" + names.qualified("outbox_seq") + "');\n"
            + "  NEW.seq := NEW.key_seq;\n"
            + "  -- a discarded entry's copy may still land until the bound the key kept (V14): never before it\n"
            + "  NEW.available_at := CASE WHEN bound > NEW.available_at THEN bound ELSE NEW.available_at END;\n"
            + "  RETURN NEW;\n"
            + "END $$",
        dropTrigger(),
        "CREATE TRIGGER " + trigger() + " BEFORE INSERT ON " + names.qualified("outbox")
            + " FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL) EXECUTE FUNCTION " + atInsertFunction() + "()");
  }

  /** @return the statements that give the schema back its default, numbering at commit */
  List<String> atCommitStatements() {
    return List.of(
        dropTrigger(),
        "CREATE CONSTRAINT TRIGGER " + trigger() + " AFTER INSERT ON " + names.qualified("outbox")
            + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL)"
            + " EXECUTE FUNCTION " + names.qualified("outbox_assign_key_seq") + "()",
        "DROP FUNCTION IF EXISTS " + atInsertFunction() + "()");
  }

  void use(KeyNumbering numbering) {
    run(numbering == KeyNumbering.AT_INSERT ? atInsertStatements() : atCommitStatements(), numbering);
  }

  /** @return the numbering the outbox table's trigger does now */
  KeyNumbering current() {
    OptionalInt type;
    try {
      type = PostgresTriggers.type(dataSource, names.qualified("outbox"), trigger());
    } catch (SQLException e) {
      throw new OutboxException("could not read the triggers of " + names.qualified("outbox") + ": " + e.getMessage(),
          e);
    }
    if (type.isEmpty()) {
      throw new OutboxException(names.qualified("outbox") + " has no key numbering trigger (" + trigger()
          + "): run the store's migrations");
    }
    // bit 1 (value 2) of tgtype marks a BEFORE trigger; the default's constraint trigger runs AFTER the insert
    return (type.getAsInt() & 2) != 0 ? KeyNumbering.AT_INSERT : KeyNumbering.AT_COMMIT;
  }

  private String atInsertFunction() {
    return names.qualified("outbox_number_key_at_insert");
  }

  private String trigger() {
    return names.unqualified("tg_outbox_key_seq");
  }

  private String dropTrigger() {
    return "DROP TRIGGER IF EXISTS " + trigger() + " ON " + names.qualified("outbox");
  }

  private void run(List<String> statements, KeyNumbering numbering) {
    try {
      PostgresTriggers.inOneTransaction(dataSource, statements);
    } catch (SQLException e) {
      throw new OutboxException("could not have " + names.qualified("outbox") + " number keys "
          + numbering.describe() + ": " + e.getMessage(), e);
    }
  }
}
