package dev.outbox4j.relay.demo;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
import dev.outbox4j.http.StandardWebhooks;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.runtime.RelayRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

/**
 * The one-command demo: an embedded H2 database in a folder, {@link DemoProducer} writing order events in real
 * transactions, a relay delivering them over the signed HTTP transport to {@link DemoSink} on the dashboard's own
 * server, and one destination ({@code legacy-erp}) that refuses its larger invoices, so quarantine is there to look at.
 *
 * <p>The relay settings are the library's defaults except where a demo wants to show more in less time: a short idle
 * poll ceiling, and a linear retry of three attempts, so an entry of the refusing destination reaches quarantine in
 * a few seconds. A second run on the same folder continues with the same database.
 *
 * <p>Thread-safe; {@link #close()} stops the producer, then the relay gracefully.
 */
public final class Demo implements AutoCloseable {
  private final RelayRuntime runtime;
  private final DemoProducer producer;
  private final HikariDataSource producerPool;
  private final DemoSink sink;
  private final String databaseUrl;

  private Demo(RelayRuntime runtime, DemoProducer producer, HikariDataSource producerPool, DemoSink sink,
      String databaseUrl) {
    this.runtime = runtime;
    this.producer = producer;
    this.producerPool = producerPool;
    this.sink = sink;
    this.databaseUrl = databaseUrl;
  }

  /**
   * @param port the dashboard's port on 127.0.0.1; 0 picks a free one
   * @param dir the database folder; created when missing
   * @param perSecond producer transactions per second
   * @param clock the time source
   * @return the running demo
   * @throws OutboxException when the folder, the port or the database cannot be used
   */
  public static Demo start(int port, Path dir, int perSecond, Clock clock) {
    Path folder = dir.toAbsolutePath().normalize();
    try {
      Files.createDirectories(folder);
    } catch (IOException e) {
      throw new OutboxException("cannot create the demo folder " + folder + ": " + e.getMessage(), e);
    }
    String url = "jdbc:h2:file:" + folder.resolve("outbox") + ";AUTO_SERVER=TRUE";
    byte[] secretBytes = new byte[24];
    new SecureRandom().nextBytes(secretBytes);
    String secret = StandardWebhooks.SECRET_PREFIX + Base64.getEncoder().encodeToString(secretBytes);
    DemoSink sink = new DemoSink(secret);
    RelayConfig.Server server = new RelayConfig.Server(true, "127.0.0.1", port, null, true);
    DemoProducer[] producerHolder = new DemoProducer[1];
    Map<String, LongSupplier> counters = new LinkedHashMap<>();
    counters.put("transactions committed", () -> producerHolder[0] == null ? 0 : producerHolder[0].committed());
    counters.put("transactions rolled back", () -> producerHolder[0] == null ? 0 : producerHolder[0].rolledBack());
    counters.put("webhooks received, signature verified", sink::received);
    counters.put("signature failures", sink::badSignatures);
    counters.put("duplicates received", sink::duplicates);
    counters.put("out of order", sink::outOfOrder);
    counters.put("refused by legacy-erp", sink::refused);
    RelayRuntime.Extras extras = new RelayRuntime.Extras(
        Map.of("/demo/sink/orders", sink.orders(), "/demo/sink/legacy-erp", sink.refusing()), counters, List.of());
    RelayRuntime runtime = RelayRuntime.start(server, bound -> config(url, server, bound, secret), extras, clock);
    HikariDataSource producerPool = null;
    try {
      producerPool = RelayAssembly.dataSource(new RelayConfig.Database(url, null, null, null, "outbox4j_", false, 2,
          null, null), "outbox4j-demo-producer");
      DemoProducer producer = new DemoProducer(producerPool, runtime.store().outbox(), runtime.relay()::wakeUp,
          RandomGenerator.getDefault());
      producerHolder[0] = producer;
      producer.start(perSecond);
      return new Demo(runtime, producer, producerPool, sink, url);
    } catch (SQLException | RuntimeException e) {
      if (producerPool != null) {
        producerPool.close();
      }
      runtime.close();
      throw new OutboxException("the demo could not start: " + e.getMessage(), e);
    }
  }

  private static RelayConfig config(String url, RelayConfig.Server server, int port, String secret) {
    String sinkBase = "http://127.0.0.1:" + port + "/demo/sink/";
    RelayConfig.Database database = new RelayConfig.Database(url, null, null, null, "outbox4j_", true, 5, null,
        null);
    RelayConfig.RelaySettings relay = new RelayConfig.RelaySettings(100, 1, Duration.ofSeconds(30),
        Duration.ofSeconds(10), 64, Duration.ofMillis(10), Duration.ofMillis(250), Duration.ofSeconds(5), false);
    RelayConfig.Retry retry = new RelayConfig.Retry("linear", Duration.ofSeconds(1), 2.0, Duration.ofSeconds(5), 3,
        Duration.ofHours(24), false);
    RelayConfig.TransportSettings webhooks = new RelayConfig.TransportSettings("webhooks", "http", Map.of(
        "endpoint.orders", sinkBase + "orders",
        "endpoint.legacy-erp", sinkBase + "legacy-erp",
        "signing-secret", secret,
        "request-timeout", "5s"), "demo");
    return new RelayConfig("demo", database, relay, retry,
        new RelayConfig.Server(true, server.bind(), port, null, true),
        Map.of("webhooks", webhooks), Map.of("orders", "webhooks", "legacy-erp", "webhooks"));
  }

  /** @return the running relay and its dashboard */
  public RelayRuntime runtime() {
    return runtime;
  }

  /** @return the webhook receivers */
  public DemoSink sink() {
    return sink;
  }

  /** @return the producer */
  public DemoProducer producer() {
    return producer;
  }

  /** @return the demo database's JDBC URL (no credentials) */
  public String databaseUrl() {
    return databaseUrl;
  }

  /** @return what to print at start: where to look */
  public String describe() {
    String base = runtime.baseUrl();
    return String.join(System.lineSeparator(),
        "outbox4j demo is running.",
        "  dashboard     " + base + "/#token=" + runtime.adminToken().value(),
        "  admin token   " + runtime.adminToken().value() + "  (needed to requeue or discard; the link above "
            + "carries it)",
        "  metrics       " + base + "/metrics",
        "  health        " + base + "/health/ready",
        "  database      " + databaseUrl,
        "  from another terminal:  " + hint(),
        "Orders are written 'orders' events (keyed per order, some transactions rolled back) and delivered as signed",
        "webhooks to " + base + "/demo/sink/orders; 'legacy-erp' refuses invoices of 50.00 and more, so those end up",
        "quarantined on the dashboard. Stop with Ctrl-C; a second run continues with the same database.");
  }

  /**
   * @return a command that shows this demo's outbox from another terminal, as it runs from the directory the demo was
   *     started in: {@code java -jar <this jar, relative to that directory> status --url '<the demo's URL>'}
   */
  public String hint() {
    return "java -jar " + jarPath() + " status --url '" + databaseUrl + "'";
  }

  /**
   * @return the running jar relative to the working directory (absolute when outside it); when not run from a jar (a
   *     test, an IDE), where the build puts it, relative to the repository root as the docs' commands are
   */
  private static String jarPath() {
    try {
      java.security.CodeSource source = Demo.class.getProtectionDomain().getCodeSource();
      if (source != null) {
        Path jar = Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
        if (Files.isRegularFile(jar) && jar.getFileName().toString().endsWith(".jar")) {
          Path here = Path.of("").toAbsolutePath().normalize();
          String shown = (jar.startsWith(here) ? here.relativize(jar) : jar).toString();
          return shown.matches("[A-Za-z0-9_./:\\\\-]+") ? shown : "'" + shown.replace("'", "'\\''") + "'";
        }
      }
    } catch (java.net.URISyntaxException | RuntimeException e) {
      // fall back to the build's path
    }
    return "outbox4j-relay/target/outbox4j-relay.jar";
  }

  /** Stops the producer, then the relay (its shutdown grace), the dashboard and the database. */
  @Override
  public void close() {
    producer.close();
    runtime.close();
    producerPool.close();
  }
}
