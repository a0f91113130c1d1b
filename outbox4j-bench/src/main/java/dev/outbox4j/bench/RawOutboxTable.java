package dev.outbox4j.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * An outbox-shaped table driven by hand-written JDBC: the ceiling every library is compared to. It has the columns an
 * outbox needs (id, sequence, destination, key, payload, content type, headers, status, attempts, times, claim) and
 * one index over waiting rows in sequence order, so the raw loop pays for the same row width and index upkeep a real
 * outbox does, and nothing else.
 *
 * <p>On PostgreSQL the index is partial ({@code (seq) WHERE status = 'PENDING'}) and a batch is retired by
 * {@code id = ANY(?)}. MariaDB has neither partial indexes nor arrays: the table is shaped as outbox4j's MariaDB table
 * (clustered on {@code seq}, a unique {@code CHAR(36)} id, {@code LONGBLOB} payload, {@code DATETIME(6)} UTC times),
 * waiting rows are found through {@code (status, seq)}, and a batch is retired by its primary keys,
 * {@code seq IN (?, …)}. A raw drain there reads at READ COMMITTED, as outbox4j's claim does, so its locking read takes
 * no gap locks that would hold up the writers' inserts.
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
  private final boolean mariaDb;
  private final int payloadSize;

  /** @param name the table name, a fixed identifier chosen by the benchmark (PostgreSQL, 200-byte payloads) */
  RawOutboxTable(String name) {
    this(name, false, Payloads.SIZE);
  }

  /**
   * @param name the table name, a fixed identifier chosen by the benchmark
   * @param mariaDb whether the table lives in MariaDB (else PostgreSQL)
   * @param payloadSize the bytes of every row's payload
   */
  RawOutboxTable(String name, boolean mariaDb, int payloadSize) {
    this.name = name;
    this.mariaDb = mariaDb;
    this.payloadSize = payloadSize;
  }

  /** @return a table of this name on the benchmark's database, with payloads of {@code payloadSize} bytes */
  static RawOutboxTable on(BenchDatabase database, String name, int payloadSize) {
    return new RawOutboxTable(name, database.mariaDb(), payloadSize);
  }

  String name() {
    return name;
  }

  void create(BenchDatabase database) throws SQLException {
    if (mariaDb) {
      database.execute(
          "DROP TABLE IF EXISTS " + name,
          "CREATE TABLE " + name + " ("
              + " seq BIGINT NOT NULL AUTO_INCREMENT,"
              + " id CHAR(36) CHARACTER SET ascii NOT NULL,"
              + " destination VARCHAR(255) NOT NULL,"
              + " ordering_key VARCHAR(255) NULL,"
              + " payload LONGBLOB NOT NULL,"
              + " content_type VARCHAR(255) NOT NULL DEFAULT 'application/octet-stream',"
              + " headers LONGTEXT NOT NULL DEFAULT ('{}'),"
              + " status VARCHAR(16) NOT NULL DEFAULT 'PENDING',"
              + " attempts INT NOT NULL DEFAULT 0,"
              + " created_at DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),"
              + " available_at DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),"
              + " delivered_at DATETIME(6) NULL,"
              + " claim_token CHAR(36) CHARACTER SET ascii NULL,"
              + " lease_until DATETIME(6) NULL,"
              + " version BIGINT NOT NULL DEFAULT 1,"
              + " PRIMARY KEY (seq),"
              + " UNIQUE KEY " + name + "_uq_id (id),"
              + " KEY " + name + "_ix_waiting (status, seq)"
              + ") ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin");
      return;
    }
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

  /** Empties the table, inserts {@code rows} pending rows set-based, and vacuums (analyses). */
  void fill(BenchDatabase database, int rows) throws SQLException {
    database.truncate(name);
    insertMore(database, rows);
  }

  /**
   * Adds {@code rows} pending rows and vacuums (analyses). PostgreSQL's 200-byte rows are made in the server, as
   * before; any other payload is bound once and copied into every row of a statement, in statements of at most
   * {@value #FILL_BYTES} payload bytes.
   */
  void insertMore(BenchDatabase database, int rows) throws SQLException {
    if (rows > 0 && !mariaDb && payloadSize == Payloads.SIZE) {
      database.execute(
          "INSERT INTO " + name + " (id, destination, payload) SELECT gen_random_uuid(), '" + Payloads.DESTINATION
              + "', convert_to(repeat('x', " + Payloads.SIZE + "), 'UTF8') FROM generate_series(1, " + rows + ")");
    } else if (rows > 0) {
      String id = mariaDb ? "UUID()" : "gen_random_uuid()";
      int chunk = chunk(payloadSize);
      for (int from = 1; from <= rows; from += chunk) {
        database.executeWith("INSERT INTO " + name + " (id, destination, payload) SELECT " + id + ", ?, ? FROM "
            + database.series(from, Math.min(rows, from + chunk - 1L)) + " ORDER BY g",
            Payloads.DESTINATION, Payloads.bytes(payloadSize));
      }
    }
    database.analyze(name);
  }

  /** The payload bytes one fill statement copies at most. */
  static final int FILL_BYTES = 64 * 1024 * 1024;

  /** @return the rows of one fill statement for payloads of {@code payloadSize} bytes */
  static int chunk(int payloadSize) {
    return Math.max(1, Math.min(100_000, FILL_BYTES / payloadSize));
  }

  /** Inserts one pending row on the caller's connection, inside the caller's transaction. */
  void insert(Connection connection) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO " + name + " (id, destination, payload, headers) VALUES (?, ?, ?, ?)")) {
      if (mariaDb) {
        insert.setString(1, UUID.randomUUID().toString());
      } else {
        insert.setObject(1, UUID.randomUUID());
      }
      insert.setString(2, Payloads.DESTINATION);
      insert.setBytes(3, Payloads.bytes(payloadSize));
      insert.setString(4, "{}");
      insert.executeUpdate();
    }
  }

  /**
   * Prepares a connection for this table's drains: on MariaDB, READ COMMITTED (the pool gives it back reset).
   *
   * @return the connection
   */
  Connection forDrain(Connection connection) throws SQLException {
    if (mariaDb) {
      connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    }
    return connection;
  }

  /**
   * One drain step in one transaction: locks up to {@code limit} waiting rows with {@code FOR UPDATE SKIP LOCKED},
   * reads them whole (as a relay must, to send them), retires them in one statement and commits.
   *
   * @param connection a connection with auto-commit off
   * @return the rows retired
   */
  int drainBatch(Connection connection, Completion completion, int limit) throws SQLException {
    if (mariaDb) {
      return drainBatchMariaDb(connection, completion, limit);
    }
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

  /** {@link #drainBatch} in MariaDB SQL: the same statements, the batch retired by its primary keys. */
  private int drainBatchMariaDb(Connection connection, Completion completion, int limit) throws SQLException {
    List<Long> seqs = lockWaiting(connection, limit, false);
    if (seqs.isEmpty()) {
      connection.commit();
      return 0;
    }
    String retire = completion == Completion.DELETE
        ? "DELETE FROM " + name + " WHERE seq IN (" + placeholders(seqs.size()) + ")"
        : "UPDATE " + name + " SET status = 'DELIVERED', delivered_at = UTC_TIMESTAMP(6), claim_token = NULL,"
            + " lease_until = NULL, version = version + 1 WHERE seq IN (" + placeholders(seqs.size()) + ")";
    int retired = bySeq(connection, retire, null, seqs);
    connection.commit();
    return retired;
  }

  /**
   * MariaDB: locks up to {@code limit} waiting rows ({@code FOR UPDATE SKIP LOCKED}, in {@code seq} order), reads them
   * whole, and returns their primary keys; {@code unleased} skips rows under an unexpired lease.
   */
  private List<Long> lockWaiting(Connection connection, int limit, boolean unleased) throws SQLException {
    List<Long> seqs = new ArrayList<>(limit);
    try (PreparedStatement select = connection.prepareStatement(
        "SELECT seq, id, destination, ordering_key, payload, content_type, headers FROM " + name
            + " WHERE status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)"
            + (unleased ? " AND (lease_until IS NULL OR lease_until < UTC_TIMESTAMP(6))" : "")
            + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED")) {
      select.setInt(1, limit);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          seqs.add(rows.getLong(1));
          rows.getString(2);
          rows.getString(3);
          rows.getString(4);
          rows.getBytes(5);
          rows.getString(6);
          rows.getString(7);
        }
      }
    }
    return seqs;
  }

  /** Runs {@code sql} with {@code first} (when not null) and then every seq bound, and returns the rows changed. */
  private static int bySeq(Connection connection, String sql, @Nullable String first, List<Long> seqs)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int index = 1;
      if (first != null) {
        statement.setString(index++, first);
      }
      for (long seq : seqs) {
        statement.setLong(index++, seq);
      }
      return statement.executeUpdate();
    }
  }

  private static String placeholders(int count) {
    return String.join(", ", java.util.Collections.nCopies(count, "?"));
  }

  /**
   * A raw claim with a lease, as a relay that delivers outside the lock must do: marks up to {@code limit} waiting
   * rows with a token and an expiry in one statement, reads them whole, and commits.
   *
   * @return the ids claimed
   */
  List<UUID> claimBatch(Connection connection, int limit) throws SQLException {
    if (mariaDb) {
      throw new IllegalStateException("a MariaDB leased claim returns primary keys: use claimAndDeleteMariaDb");
    }
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
   * The leased reference in MariaDB SQL, which has no {@code UPDATE … RETURNING}: locks and reads up to
   * {@code limit} waiting unleased rows, writes a token and a lease into them by primary key, commits; then deletes
   * them by primary key and commits: the same two commits per batch.
   *
   * @return the rows deleted (0 when nothing was waiting)
   */
  int leasedBatchMariaDb(Connection connection, int limit) throws SQLException {
    List<Long> seqs = lockWaiting(connection, limit, true);
    if (seqs.isEmpty()) {
      connection.commit();
      return 0;
    }
    bySeq(connection, "UPDATE " + name + " SET claim_token = ?, lease_until = UTC_TIMESTAMP(6) + INTERVAL 30 SECOND,"
        + " version = version + 1 WHERE seq IN (" + placeholders(seqs.size()) + ")", UUID.randomUUID().toString(),
        seqs);
    connection.commit();
    int deleted = bySeq(connection, "DELETE FROM " + name + " WHERE seq IN (" + placeholders(seqs.size()) + ")",
        null, seqs);
    connection.commit();
    return deleted;
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
