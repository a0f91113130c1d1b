package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.spi.Claim;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Claim cost against backlogs queued behind a few keys, on PostgreSQL, MariaDB or H2 (issue 9): one
 * {@code claim(500, now, 30 s)} with 10,000 entries pending over 1,000 keys (the reference), and with a large backlog
 * over 5 keys, over 1 key, over 5 keys whose heads are all leased, and over 5 keys whose heads are all quarantined.
 * Then the drain rate of a 5-key backlog through {@code Relay.drain} with a no-op transport, and the cost of one keyed
 * write with the schema before and after the claim migration (V2). And, on request ({@code --only paused}), the other
 * destinations' throughput beside a paused destination's waiting backlog ({@link PausedBacklogRun}).
 *
 * <p>Each claim runs at its own {@code now}, one minute after the previous one, with a 30 s lease: every earlier claim
 * has expired, so every measured claim sees the same table without any clean-up between them. The reported figure is
 * the median of the claims.
 *
 * <pre>
 * mvn -q -pl outbox4j-bench -am package -DskipTests exec:java \
 *     -Dexec.args="claim-backlog --db postgresql --pending 1000000"
 * </pre>
 * {@code --db postgresql|mariadb|h2}, {@code --pending N} (default 1,000,000), {@code --claims N} (default 15),
 * {@code --drain N} (default 100,000), {@code --writes N} (default 3,000), {@code --only claims,drain,writes} (the
 * default; {@code paused} is also accepted), and for {@code paused}: {@code --paused N} (default 200,000),
 * {@code --healthy N} (default 20,000), {@code --rounds N} (default 3). It
 * creates a database of its own ({@code o4j_<epoch>_<pid>_bench}; H2: a file under {@code /tmp}) and drops it at
 * the end.
 */
public final class ClaimBacklogBench {
  private static final String PREFIX = "bench_cb_";
  private static final int LIMIT = 500;
  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

  /** The {@code now} of the next phase: one day after the previous phase's, so no lease of it is still running. */
  private Instant base = START;

  private final String db;
  private final String url;
  private final String serverUrl;
  private final String name;
  private final TableNames names = TableNames.withPrefix(PREFIX);
  private final String outbox = PREFIX + "outbox";

  private ClaimBacklogBench(String db) {
    this.db = db;
    this.name = "o4j_" + Instant.now().getEpochSecond() + "_" + ProcessHandle.current().pid() + "_bench";
    switch (db) {
      case "postgresql" -> {
        serverUrl = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
        url = "jdbc:postgresql://127.0.0.1:5432/" + name + "?user=postgres";
      }
      case "mariadb" -> {
        serverUrl = "jdbc:mariadb://127.0.0.1:3306/?user=root";
        url = "jdbc:mariadb://127.0.0.1:3306/" + name + "?user=root";
      }
      case "h2" -> {
        serverUrl = null;
        url = "jdbc:h2:file:/tmp/" + name + ";LOCK_TIMEOUT=20000";
      }
      default -> throw new IllegalArgumentException("--db must be postgresql, mariadb or h2, was " + db);
    }
  }

  /** @param args see the class comment */
  public static void main(String[] args) throws Exception {
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    String db = "postgresql";
    int pending = 1_000_000;
    int claims = 15;
    int drain = 100_000;
    int writes = 3_000;
    int paused = 200_000;
    int healthy = 20_000;
    int rounds = 3;
    List<String> only = List.of("claims", "drain", "writes");
    for (int i = 0; i + 1 < args.length; i += 2) {
      String value = args[i + 1].replace("_", "");
      switch (args[i]) {
        case "--db" -> db = value.toLowerCase(Locale.ROOT);
        case "--pending" -> pending = Integer.parseInt(value);
        case "--claims" -> claims = Integer.parseInt(value);
        case "--drain" -> drain = Integer.parseInt(value);
        case "--writes" -> writes = Integer.parseInt(value);
        case "--only" -> only = Arrays.asList(value.split(","));
        case "--paused" -> paused = Integer.parseInt(value);
        case "--healthy" -> healthy = Integer.parseInt(value);
        case "--rounds" -> rounds = Integer.parseInt(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ClaimBacklogBench bench = new ClaimBacklogBench(db);
    bench.createDatabase();
    try (HikariDataSource pool = bench.pool()) {
      System.out.printf("claim-backlog bench on %s, load average %s%n", db, loadAverage());
      if (only.contains("claims")) {
        bench.claims(pool, pending, claims);
      }
      if (only.contains("drain")) {
        bench.drain(pool, drain);
      }
      if (only.contains("writes")) {
        bench.writes(pool, writes);
      }
      if (only.contains("paused")) {
        new PausedBacklogRun(db, bench.outbox, () -> bench.fresh(pool), bench::execute).run(paused, healthy, rounds);
      }
      System.out.printf("load average after: %s%n", loadAverage());
    } finally {
      bench.dropDatabase();
    }
  }

  private void claims(HikariDataSource pool, int pending, int claims) throws Exception {
    JdbcOutboxStore store = fresh(pool);
    System.out.println("| backlog | heads | claimed per claim | median claim | min | max |");
    System.out.println("| --- | --- | --- | --- | --- | --- |");
    fill(store, 10_000, 1_000);
    row("10,000 over 1,000 keys (reference)", "claimable", store, claims);
    fill(store, pending, 5);
    row(String.format("%,d over 5 keys", pending), "claimable", store, claims);
    hold(store, false);
    row(String.format("%,d over 5 keys", pending), "all leased", store, claims);
    fill(store, pending, 5);
    hold(store, true);
    row(String.format("%,d over 5 keys", pending), "all quarantined", store, claims);
    fill(store, pending, 1);
    row(String.format("%,d over 1 key", pending), "claimable", store, claims);
  }

  /** Claims every head once, then leases them for ten years or quarantines them. */
  private void hold(JdbcOutboxStore store, boolean quarantine) {
    base = base.plus(Duration.ofDays(1));
    List<Claim> heads = store.claim(LIMIT, base, Duration.ofDays(3650));
    for (Claim head : heads) {
      if (quarantine) {
        store.quarantine(head, dev.outbox4j.QuarantineReason.permanentFailure("bench"));
      }
    }
  }


  private void row(String backlog, String heads, JdbcOutboxStore store, int claims) {
    base = base.plus(Duration.ofDays(1));
    long[] nanos = new long[claims];
    int claimed = 0;
    store.claim(LIMIT, base, Duration.ofSeconds(30)); // warm-up: plans and caches
    for (int i = 0; i < claims; i++) {
      Instant now = base.plus(Duration.ofMinutes(i + 1));
      long start = System.nanoTime();
      claimed = store.claim(LIMIT, now, Duration.ofSeconds(30)).size();
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    System.out.printf("| %s | %s | %d | %.2f ms | %.2f ms | %.2f ms |%n", backlog, heads, claimed,
        nanos[claims / 2] / 1e6, nanos[0] / 1e6, nanos[claims - 1] / 1e6);
  }

  private void drain(HikariDataSource pool, int backlog) throws Exception {
    JdbcOutboxStore store = fresh(pool);
    fill(store, backlog, 5);
    DeliveryCounter counter = new DeliveryCounter();
    counter.reset(backlog);
    Relay relay = Relay.builder(store, new NoOpTransport(counter)).withBatchSize(LIMIT).build();
    long start = System.nanoTime();
    long delivered = relay.drain(Integer.MAX_VALUE).delivered();
    double seconds = (System.nanoTime() - start) / 1e9;
    relay.close();
    System.out.printf("drain of %,d over 5 keys, 1 relay, no-op transport: %,d delivered in %.1f s = %,.0f msgs/s"
        + " (%,.0f claim+complete round trips per key per second)%n", backlog, delivered, seconds,
        delivered / seconds, delivered / seconds / 5);
  }

  /**
   * One writer, one message per transaction (keyed over 1,000 keys, or unkeyed): the V1 schema, then V1 + V2,
   * alternately, five rounds each.
   */
  private void writes(HikariDataSource pool, int writes) throws Exception {
    for (boolean keyed : new boolean[] {true, false}) {
      JdbcOutboxStore store = fresh(pool);
      JdbcOutbox writer = store.outbox();
      double[] before = new double[5];
      double[] after = new double[5];
      for (int round = 0; round < before.length; round++) {
        undoClaimMigration();
        before[round] = writeMicros(pool, writer, writes, keyed);
        fresh(pool);
        after[round] = writeMicros(pool, writer, writes, keyed);
      }
      Arrays.sort(before);
      Arrays.sort(after);
      System.out.printf("%s write + commit, 1 writer, %,d per round, median of 5 rounds: V1 schema %.0f µs,"
          + " V1+V2 schema %.0f µs (rounds: %s vs %s)%n", keyed ? "keyed" : "unkeyed", writes, before[2], after[2],
          Arrays.toString(before), Arrays.toString(after));
    }
  }

  private double writeMicros(HikariDataSource pool, JdbcOutbox writer, int writes, boolean keyed)
      throws SQLException {
    execute("DELETE FROM " + outbox, "DELETE FROM " + PREFIX + "outbox_key");
    long start = System.nanoTime();
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < writes; i++) {
        writer.write(c, Outbox4jTables.message(keyed ? "key-" + (i % 1_000) : null));
        c.commit();
      }
      c.setAutoCommit(true);
    }
    return (System.nanoTime() - start) / 1e3 / writes;
  }

  /** Returns the outbox table to the V1 schema: what a writer paid before this change. */
  private void undoClaimMigration() throws SQLException {
    switch (db) {
      case "postgresql" -> execute("DROP INDEX " + PREFIX + "ix_outbox_claim_unkeyed");
      case "mariadb" -> execute("ALTER TABLE " + outbox + " DROP KEY " + PREFIX + "ix_outbox_head, DROP KEY "
          + PREFIX + "ix_outbox_unkeyed, DROP COLUMN head_key, DROP COLUMN unkeyed_waiting, ADD KEY " + PREFIX
          + "ix_outbox_key_head (ordering_key, key_seq)");
      default -> execute("DROP INDEX " + PREFIX + "ix_outbox_head", "DROP INDEX " + PREFIX + "ix_outbox_unkeyed",
          "ALTER TABLE " + outbox + " DROP COLUMN head_key", "ALTER TABLE " + outbox + " DROP COLUMN unkeyed_waiting",
          "CREATE INDEX " + PREFIX + "ix_outbox_key_head ON " + outbox + " (ordering_key, key_seq)",
          "DROP TRIGGER " + PREFIX + "outbox_key_seq", h2Trigger());
    }
  }

  private String h2Trigger() {
    return "CREATE TRIGGER " + PREFIX + "outbox_key_seq BEFORE INSERT ON " + outbox
        + " FOR EACH ROW CALL 'dev.outbox4j.jdbc.H2KeySequenceTrigger'";
  }

  /** Drops and migrates the tables (V1 + V2). */
  private JdbcOutboxStore fresh(HikariDataSource pool) throws SQLException {
    switch (db) {
      case "postgresql" -> execute("DROP TABLE IF EXISTS " + outbox + ", " + PREFIX + "outbox_key, " + PREFIX
          + "outbox_claim, " + PREFIX + "outbox_destination_pause, " + PREFIX + "operator_audit, " + PREFIX
          + "schema_version CASCADE",
          "DROP FUNCTION IF EXISTS " + PREFIX + "outbox_assign_key_seq() CASCADE",
          "DROP FUNCTION IF EXISTS " + PREFIX + "outbox_claim_last_seq(bigint[]) CASCADE");
      case "mariadb" -> execute("DROP TABLE IF EXISTS " + outbox + ", " + PREFIX + "outbox_key, " + PREFIX
          + "outbox_destination_pause, " + PREFIX + "operator_audit, " + PREFIX + "schema_version");
      default -> execute("DROP ALL OBJECTS");
    }
    JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTableNames(names).build();
    store.migrate();
    return store;
  }

  /**
   * Empties the tables and inserts {@code rows} pending keyed entries round-robin over {@code keys} keys with
   * set-based SQL, numbering each key's entries as the key trigger would (the trigger is bypassed for the bulk load,
   * and the key table is filled to match), then refreshes the statistics.
   */
  private void fill(JdbcOutboxStore store, int rows, int keys) throws SQLException {
    execute("DELETE FROM " + outbox, "DELETE FROM " + PREFIX + "outbox_key");
    String columns = " (id, destination, ordering_key, key_seq, payload, created_at, available_at) ";
    switch (db) {
      case "postgresql" -> execute("SET session_replication_role = replica",
          "INSERT INTO " + outbox + columns + "SELECT gen_random_uuid(), 'orders', 'key-' || (g % " + keys + "), (g / "
              + keys + ") + 1, convert_to(repeat('x', 200), 'UTF8'), '2000-01-01T00:00:00Z', '2000-01-01T00:00:00Z'"
              + " FROM generate_series(0, " + (rows - 1) + ") g ORDER BY g",
          "SET session_replication_role = origin",
          "VACUUM ANALYZE " + outbox);
      case "mariadb" -> {
        // the trigger numbers the rows itself; bypassing it would need its text here
        for (int from = 0; from < rows; from += 100_000) {
          int to = Math.min(rows, from + 100_000) - 1;
          execute("INSERT INTO " + outbox + " (id, destination, ordering_key, payload, created_at, available_at)"
              + " SELECT UUID(), 'orders', CONCAT('key-', seq % " + keys + "), REPEAT('x', 200),"
              + " '2000-01-01 00:00:00', '2000-01-01 00:00:00' FROM seq_" + from + "_to_" + to + " ORDER BY seq");
        }
        execute("ANALYZE TABLE " + outbox);
      }
      default -> execute("DROP TRIGGER " + PREFIX + "outbox_key_seq",
          "INSERT INTO " + outbox + columns + "SELECT RANDOM_UUID(), 'orders', 'key-' || MOD(x, " + keys + "), x / "
              + keys + " + 1, CAST(REPEAT('x', 200) AS VARBINARY), TIMESTAMP WITH TIME ZONE '2000-01-01 00:00:00Z',"
              + " TIMESTAMP WITH TIME ZONE '2000-01-01 00:00:00Z' FROM SYSTEM_RANGE(0, " + (rows - 1) + ")",
          h2Trigger(), "ANALYZE");
    }
    switch (db) {
      case "postgresql" -> execute("INSERT INTO " + PREFIX + "outbox_key (ordering_key) SELECT DISTINCT ordering_key"
          + " FROM " + outbox);
      case "mariadb" -> { }
      default -> execute("INSERT INTO " + PREFIX + "outbox_key (ordering_key, last_seq) SELECT ordering_key,"
          + " MAX(key_seq) FROM " + outbox + " GROUP BY ordering_key");
    }
  }

  private HikariDataSource pool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    config.setPoolName("claim-backlog-bench");
    return new HikariDataSource(config);
  }

  private void execute(String... statements) throws SQLException {
    try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private void createDatabase() throws SQLException {
    if (serverUrl != null) {
      try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + name);
      }
    }
  }

  private void dropDatabase() {
    try {
      if (serverUrl != null) {
        try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
          s.execute("DROP DATABASE " + name + (db.equals("postgresql") ? " WITH (FORCE)" : ""));
        }
      } else {
        java.nio.file.Files.deleteIfExists(java.nio.file.Path.of("/tmp/" + name + ".mv.db"));
      }
    } catch (Exception e) {
      System.err.println("could not drop " + name + ": " + e.getMessage());
    }
  }

  private static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
