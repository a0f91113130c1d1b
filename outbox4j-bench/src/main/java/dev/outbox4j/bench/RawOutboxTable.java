package dev.outbox4j.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * An outbox-shaped table driven by hand-written JDBC: the ceiling every library is compared to. It has the columns an
 * outbox needs (id, sequence, destination, key, payload, content type, headers, status, attempts, times, claim) and
 * one partial index over waiting rows in sequence order, so the raw loop pays for the same row width and index upkeep
 * a real outbox does, and nothing else.
 */
final class RawOutboxTable {
  /** How the raw drain retires a delivered row. */
  enum Completion {
    /** {@code DELETE} the rows (retention: delete on delivery). */
    DELETE,
    /** {@code UPDATE} the rows to DELIVERED (retention: keep). */
    UPDATE
  }

  private final String name;

  /** @param name the table name, a fixed identifier chosen by the benchmark */
  RawOutboxTable(String name) {
    this.name = name;
  }

  String name() {
    return name;
  }

  void create(BenchDatabase database) throws SQLException {
    database.execute(
        "DROP TABLE IF EXISTS " + name,
        "CREATE TABLE " + name + " ("
            + " id UUID PRIMARY KEY,"
            + " seq BIGINT GENERATED ALWAYS AS IDENTITY,"
            + " destination VARCHAR(255) NOT NULL,"
            + " ordering_key VARCHAR(255),"
            + " payload BYTEA NOT NULL,"
            + " content_type VARCHAR(255) NOT NULL DEFAULT 'application/octet-stream',"
            + " headers TEXT NOT NULL DEFAULT '{}',"
            + " status VARCHAR(16) NOT NULL DEFAULT 'PENDING',"
            + " attempts INTEGER NOT NULL DEFAULT 0,"
            + " created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),"
            + " available_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),"
            + " delivered_at TIMESTAMPTZ,"
            + " claim_token UUID,"
            + " lease_until TIMESTAMPTZ,"
            + " version BIGINT NOT NULL DEFAULT 1)",
        "CREATE INDEX " + name + "_ix_waiting ON " + name + " (seq) WHERE status = 'PENDING'");
  }

  /** Empties the table, inserts {@code rows} pending rows in one statement, and vacuums. */
  void fill(BenchDatabase database, int rows) throws SQLException {
    database.execute("TRUNCATE " + name);
    insertMore(database, rows);
  }

  /** Adds {@code rows} pending rows in one statement and vacuums. */
  void insertMore(BenchDatabase database, int rows) throws SQLException {
    if (rows > 0) {
      database.execute(
          "INSERT INTO " + name + " (id, destination, payload) SELECT gen_random_uuid(), '" + Payloads.DESTINATION
              + "', convert_to(repeat('x', " + Payloads.SIZE + "), 'UTF8') FROM generate_series(1, " + rows + ")");
    }
    database.execute("VACUUM ANALYZE " + name);
  }

  /** Inserts one pending row on the caller's connection, inside the caller's transaction. */
  void insert(Connection connection) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO " + name + " (id, destination, payload, headers) VALUES (?, ?, ?, ?)")) {
      insert.setObject(1, UUID.randomUUID());
      insert.setString(2, Payloads.DESTINATION);
      insert.setBytes(3, Payloads.bytes());
      insert.setString(4, "{}");
      insert.executeUpdate();
    }
  }

  /**
   * One drain step in one transaction: locks up to {@code limit} waiting rows with {@code FOR UPDATE SKIP LOCKED},
   * reads them whole (as a relay must, to send them), retires them in one statement and commits.
   *
   * @param connection a connection with auto-commit off
   * @return the rows retired
   */
  int drainBatch(Connection connection, Completion completion, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>(limit);
    try (PreparedStatement select = connection.prepareStatement(
        "SELECT id, destination, ordering_key, payload, content_type, headers FROM " + name
            + " WHERE status = 'PENDING' AND available_at <= now() ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED")) {
      select.setInt(1, limit);
      readWhole(select, ids);
    }
    if (ids.isEmpty()) {
      connection.commit();
      return 0;
    }
    String retire = completion == Completion.DELETE
        ? "DELETE FROM " + name + " WHERE id = ANY(?)"
        : "UPDATE " + name + " SET status = 'DELIVERED', delivered_at = now(), claim_token = NULL,"
            + " lease_until = NULL, version = version + 1 WHERE id = ANY(?)";
    try (PreparedStatement update = connection.prepareStatement(retire)) {
      Array array = connection.createArrayOf("uuid", ids.toArray());
      update.setArray(1, array);
      int retired = update.executeUpdate();
      connection.commit();
      return retired;
    }
  }

  /**
   * A raw claim with a lease, as a relay that delivers outside the lock must do: marks up to {@code limit} waiting
   * rows with a token and an expiry in one statement, reads them whole, and commits.
   *
   * @return the ids claimed
   */
  List<UUID> claimBatch(Connection connection, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>(limit);
    try (PreparedStatement claim = connection.prepareStatement(
        "UPDATE " + name + " SET claim_token = ?, lease_until = now() + interval '30 seconds', version = version + 1"
            + " WHERE id IN (SELECT id FROM " + name + " WHERE status = 'PENDING' AND available_at <= now()"
            + " AND (lease_until IS NULL OR lease_until < now()) ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)"
            + " RETURNING id, destination, ordering_key, payload, content_type, headers")) {
      claim.setObject(1, UUID.randomUUID());
      claim.setInt(2, limit);
      readWhole(claim, ids);
    }
    connection.commit();
    return ids;
  }

  /**
   * A claim held by the database session instead of written into the rows (the design measured for issue 14): a
   * read-only statement takes a session-level advisory lock on the {@code seq} of up to {@code limit} waiting rows
   * (skipping rows another session holds), then a second statement, with a fresh snapshot, reads the locked rows that
   * are still waiting. No row version is written; a dead session's locks vanish with it.
   *
   * @param connection a connection in auto-commit mode
   * @return the ids claimed
   */
  List<UUID> sessionClaimBatch(Connection connection, int limit) throws SQLException {
    List<Long> locked = new ArrayList<>(limit);
    try (PreparedStatement lock = connection.prepareStatement(
        "WITH candidates AS MATERIALIZED (SELECT seq FROM " + name + " WHERE status = 'PENDING'"
            + " AND available_at <= now() ORDER BY seq LIMIT ?)"
            + " SELECT seq FROM candidates WHERE pg_try_advisory_lock(seq)")) {
      lock.setInt(1, limit);
      try (ResultSet rows = lock.executeQuery()) {
        while (rows.next()) {
          locked.add(rows.getLong(1));
        }
      }
    }
    List<UUID> ids = new ArrayList<>(locked.size());
    if (locked.isEmpty()) {
      return ids;
    }
    try (PreparedStatement read = connection.prepareStatement(
        "SELECT id, destination, ordering_key, payload, content_type, headers FROM " + name
            + " WHERE seq = ANY(?) AND status = 'PENDING'")) {
      read.setArray(1, connection.createArrayOf("bigint", locked.toArray()));
      readWhole(read, ids);
    }
    return ids;
  }

  /** Deletes the given rows and releases their session locks in one auto-commit statement. */
  int deleteIdsAndUnlock(Connection connection, List<UUID> ids) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement("WITH retired AS (DELETE FROM " + name
        + " WHERE id = ANY(?) RETURNING seq) SELECT count(*) FILTER (WHERE pg_advisory_unlock(seq)) FROM retired")) {
      delete.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
      try (ResultSet result = delete.executeQuery()) {
        result.next();
        return result.getInt(1);
      }
    }
  }

  /** Reads every selected row whole, as a relay must to send it, and collects the ids. */
  private static void readWhole(PreparedStatement select, List<UUID> ids) throws SQLException {
    try (ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        ids.add(rows.getObject(1, UUID.class));
        rows.getString(2);
        rows.getString(3);
        rows.getBytes(4);
        rows.getString(5);
        rows.getString(6);
      }
    }
  }

  /** Deletes the given rows in one statement and commits: the completion after a leased claim. */
  int deleteIds(Connection connection, List<UUID> ids) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + name + " WHERE id = ANY(?)")) {
      delete.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
      int deleted = delete.executeUpdate();
      connection.commit();
      return deleted;
    }
  }

  /** Deletes the claimed rows (those with a lease), committed: the clean-up after a timed claim. */
  void deleteClaimed(Connection connection) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(
        "DELETE FROM " + name + " WHERE lease_until IS NOT NULL")) {
      delete.executeUpdate();
    }
    connection.commit();
  }
}
