package dev.outbox4j.relay.runtime;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures (never asserts) what quiet tenant outboxes cost one relay process: 50 PostgreSQL tenant schemas of one
 * database drained by one tenants entry, nothing written; over a minute, the relay JVM's CPU (share of one core) and
 * what it asks of the database — transactions per second and scans of the tenant outbox tables per second (claims
 * and stats readings) — once polling at the default {@code relay.poll-max} of 1 s without LISTEN/NOTIFY, once woken
 * by the notify trigger through one listener with a poll of 1 minute. Then the time from a row written into one idle
 * tenant to its delivery. Run with {@code mvn -q -pl outbox4j-relay -am verify -Pidle-tenants -DskipTests}.
 */
public final class IdleTenantsCost {
  private static final int TENANTS = 50;
  private static final Duration WINDOW = Duration.ofSeconds(60);

  private IdleTenantsCost() {}

  /** @param args ignored */
  public static void main(String[] args) throws Exception {
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      for (String mode : List.of("poll", "notify")) {
        String prefix = "idle_" + mode + "_";
        for (int t = 0; t < TENANTS; t++) {
          execute(url, "CREATE SCHEMA IF NOT EXISTS " + prefix + t);
        }
        Path file = Files.createTempFile("idle-tenants", ".yaml");
        Files.writeString(file, String.join("\n",
            "server:",
            "  port: 0",
            "transports:",
            "  webhooks:",
            "    type: http",
            "    endpoint.orders: " + webhook.url("/orders"),
            "outboxes:",
            "  tenants:",
            "    database:",
            "      url: '" + url + "'",
            "      table-prefix: it_",
            "      migrate: true",
            "      notify-trigger: " + mode.equals("notify"),
            "    relay:",
            "      listen-notify: " + mode.equals("notify"),
            "      poll-max: " + (mode.equals("notify") ? "1m" : "1s"),
            "    tenants:",
            "      schemas: '" + prefix + "[0-9]+'",
            "    destinations:",
            "      orders: webhooks",
            ""));
        try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
          long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
          while (runtime.lanes().stream().filter(l -> l.state() == OutboxLane.State.RUNNING).count() < TENANTS) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("the tenants did not all start");
            }
            Thread.sleep(200);
          }
          Thread.sleep(10_000); // settle: first passes, first readings, idle polls backed off to their ceiling
          long cpu = processCpuNanos();
          long[] database = databaseCounters(url, prefix);
          long started = System.nanoTime();
          Thread.sleep(WINDOW.toMillis());
          double seconds = (System.nanoTime() - started) / 1e9;
          double cpuShare = (processCpuNanos() - cpu) / 1e9 / seconds;
          long[] after = databaseCounters(url, prefix);
          int before = webhook.received().size();
          long written = System.nanoTime();
          OutboxWrites.write(url, prefix + "7", "it_", "orders", "idle-" + mode + "-", 1, 1, 0);
          while (webhook.received().size() == before) {
            Thread.sleep(1);
          }
          double latencyMs = (System.nanoTime() - written) / 1e6;
          System.out.printf(Locale.ROOT, "%-6s %d quiet tenants: relay CPU %.1f %% of one core, database %.1f"
                  + " transactions/s, %.1f scans of tenant outbox tables/s; one row into an idle tenant delivered"
                  + " in %.0f ms%n", mode, TENANTS, cpuShare * 100, (after[0] - database[0]) / seconds,
              (after[1] - database[1]) / seconds, latencyMs);
        }
        for (int t = 0; t < TENANTS; t++) {
          execute(url, "DROP SCHEMA " + prefix + t + " CASCADE");
        }
      }
    }
    System.exit(0);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** @return the database's committed transactions, and the scans of the tenants' outbox tables */
  private static long[] databaseCounters(String url, String prefix) throws Exception {
    try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
      statement.execute("SELECT pg_stat_clear_snapshot()");
      long transactions;
      try (ResultSet rows = statement.executeQuery(
          "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")) {
        rows.next();
        transactions = rows.getLong(1);
      }
      try (ResultSet rows = statement.executeQuery("SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)),"
          + " 0) FROM pg_stat_user_tables WHERE relname = 'it_outbox' AND schemaname LIKE '" + prefix + "%'")) {
        rows.next();
        return new long[] {transactions, rows.getLong(1)};
      }
    }
  }

  private static void execute(String url, String sql) throws Exception {
    try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
