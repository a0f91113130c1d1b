package dev.outbox4j.relay.runtime;

import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.BatchReport;
import dev.outbox4j.Message;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures (never asserts) whether a busy outbox starves a quiet one in the same relay process: the quiet outbox gets
 * one row every 20 ms, each delivered to a webhook that notes when it arrived; its delivery latency (commit to
 * arrival) is taken alone, then while a second outbox of the same relay drains a backlog of
 * {@value #BACKLOG} rows at full speed to another endpoint. Prints p50 / p99 / max of each and the ratio of the p99s,
 * and the busy outbox's drain rate alone (its first seconds, the quiet outbox idle) and beside the quiet one, and where
 * the quiet outbox's time goes in each round (the claim, the delivery and the completion of its passes).
 * Both outboxes are PostgreSQL tables of one database, woken by LISTEN/NOTIFY. Run with
 * {@code mvn -q -pl outbox4j-relay -am verify -Pfairness -DskipTests}.
 */
public final class OutboxFairness {
  private static final int BACKLOG = 60_000;
  /** Rows per round: its p99 is then the tenth-worst latency, not the third-worst of 300. */
  private static final int QUIET_ROWS = 1_000;
  /** How long the busy outbox drains alone, the quiet one idle, before the quiet one's round beside it. */
  private static final Duration BUSY_ALONE = Duration.ofSeconds(6);

  private OutboxFairness() {}

  /**
   * The phases of the quiet outbox's passes while recording: its batches are the small ones (a row every 20 ms), the
   * busy outbox's hold {@code batch-size} rows while its backlog lasts.
   */
  private static final class QuietPhases implements RelayListener {
    private static final String[] NAMES = {"claim", "delivery", "completion"};
    private final List<double[]> phases = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean recording;

    @Override
    public void onBatch(BatchReport report) {
      if (recording && report.result().claimed() > 0 && report.result().claimed() <= 8) {
        phases.add(new double[] {millis(report.claimTime()), millis(report.deliveryTime()),
            millis(report.completionTime())});
      }
    }

    private static double millis(Duration duration) {
      return duration.toNanos() / 1e6;
    }

    /** Runs a round while recording, then prints each phase's p50 / p99 / max and forgets them. */
    <T> T during(String round, Callable<T> work) throws Exception {
      recording = true;
      T result;
      try {
        result = work.call();
      } finally {
        recording = false;
      }
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  its passes %s:", round));
      for (int phase = 0; phase < NAMES.length; phase++) {
        List<Double> times = new ArrayList<>();
        synchronized (phases) {
          for (double[] pass : phases) {
            times.add(pass[phase]);
          }
        }
        Collections.sort(times);
        line.append(String.format(Locale.ROOT, " %s p50 %.1f / p99 %.1f / max %.1f ms;", NAMES[phase],
            percentile(times, 50), percentile(times, 99), percentile(times, 100)));
      }
      phases.clear();
      System.out.println(line.substring(0, line.length() - 1));
      return result;
    }
  }

  /** @param args ignored */
  public static void main(String[] args) throws Exception {
    String url = RunDatabases.postgresUrl();
    Map<String, Long> arrived = new ConcurrentHashMap<>();
    AtomicLong busyDelivered = new AtomicLong();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
    server.setExecutor(Executors.newFixedThreadPool(32));
    server.createContext("/", exchange -> {
      try (exchange) {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (exchange.getRequestURI().getPath().equals("/quiet")) {
          arrived.putIfAbsent(body, System.nanoTime());
        } else {
          busyDelivered.incrementAndGet();
        }
        exchange.sendResponseHeaders(204, -1);
      }
    });
    server.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    Path file = Files.createTempFile("fairness", ".yaml");
    Files.writeString(file, String.join("\n",
        "server:",
        "  enabled: false",
        "relay:",
        "  listen-notify: true",
        "  poll-max: 1s",
        "transports:",
        "  hooks:",
        "    type: http",
        "    endpoint.quiet: " + base + "/quiet",
        "    endpoint.busy: " + base + "/busy",
        "outboxes:",
        "  quiet:",
        "    database:",
        "      url: '" + url + "'",
        "      table-prefix: fq_",
        "      migrate: true",
        "      notify-trigger: true",
        "    destinations:",
        "      quiet: hooks",
        "  busy:",
        "    database:",
        "      url: '" + url + "'",
        "      table-prefix: fb_",
        "      migrate: true",
        "    relay:",
        "      batch-size: 500",
        "      workers: 2",
        "    destinations:",
        "      busy: hooks",
        ""));
    QuietPhases phases = new QuietPhases();
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of());
    try (RelayRuntime runtime = RelayRuntime.start(config.server(), port -> config,
        new RelayRuntime.Extras(Map.of(), Map.of(), List.of(phases)), Clock.systemUTC())) {
      quietRound(url, arrived, "warm-up", 100);
      List<Double> alone = phases.during("alone", () -> quietRound(url, arrived, "alone", QUIET_ROWS));
      runtime.lane("busy").orElseThrow().relay(); // running
      backlog(url);
      long aloneFrom = busyDelivered.get();
      long aloneStarted = System.nanoTime();
      Thread.sleep(BUSY_ALONE.toMillis());
      double busyAlone = (busyDelivered.get() - aloneFrom) / ((System.nanoTime() - aloneStarted) / 1e9);
      long before = busyDelivered.get();
      long started = System.nanoTime();
      List<Double> beside = phases.during("beside", () -> quietRound(url, arrived, "beside", QUIET_ROWS));
      double seconds = (System.nanoTime() - started) / 1e9;
      long busyDone = busyDelivered.get();
      double busyRate = (busyDone - before) / seconds;
      System.out.printf(Locale.ROOT, "quiet outbox alone:               p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          percentile(alone, 50), percentile(alone, 99), percentile(alone, 100));
      System.out.printf(Locale.ROOT, "quiet outbox beside a busy one:   p50 %.1f ms, p99 %.1f ms, max %.1f ms"
          + " (the busy outbox delivered %.0f rows/s meanwhile, %d of %d waiting at the end)%n",
          percentile(beside, 50), percentile(beside, 99), percentile(beside, 100), busyRate,
          BACKLOG - busyDone, BACKLOG);
      System.out.printf(Locale.ROOT, "busy outbox alone:                %.0f rows/s (the quiet outbox idle, %d s)%n",
          busyAlone, BUSY_ALONE.toSeconds());
      System.out.printf(Locale.ROOT, "p99 beside / alone: %.2f%n", percentile(beside, 99) / percentile(alone, 99));
    } finally {
      server.stop(0);
    }
    System.exit(0);
  }

  /** Writes one row every 20 ms into the quiet outbox and returns each one's latency to its arrival, in ms. */
  private static List<Double> quietRound(String url, Map<String, Long> arrived, String round, int rows)
      throws Exception {
    JdbcOutbox outbox = JdbcOutbox.builder().withTableNames(new TableNames(null, "fq_")).build();
    Map<String, Long> committed = new ConcurrentHashMap<>();
    try (Connection connection = DriverManager.getConnection(url)) {
      connection.setAutoCommit(false);
      for (int i = 0; i < rows; i++) {
        String payload = round + "-" + i;
        outbox.write(connection, Message.builder().withDestination("quiet").withOrderingKey("q" + (i % 8))
            .withPayload(payload).build());
        connection.commit();
        committed.put(payload, System.nanoTime());
        Thread.sleep(20);
      }
    }
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!committed.keySet().stream().allMatch(arrived::containsKey) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    List<Double> latencies = new ArrayList<>();
    committed.forEach((payload, at) -> {
      Long in = arrived.get(payload);
      latencies.add(in == null ? Double.POSITIVE_INFINITY : (in - at) / 1e6);
    });
    Collections.sort(latencies);
    return latencies;
  }

  /** Writes the busy outbox's backlog in one statement per 10,000 rows. */
  private static void backlog(String url) throws Exception {
    try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
      for (int done = 0; done < BACKLOG; done += 10_000) {
        statement.execute("INSERT INTO fb_outbox (id, destination, ordering_key, payload, content_type, headers)"
            + " SELECT gen_random_uuid(), 'busy', 'b' || (n % 500), convert_to('x' || n, 'UTF8'), 'text/plain', '{}'"
            + " FROM generate_series(1, 10000) AS n");
      }
    }
  }

  private static double percentile(List<Double> sorted, int percent) {
    int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }
}
