package dev.outbox4j.relay.runtime;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.PostgresWakeUpListener;
import dev.outbox4j.micrometer.OutboxMetrics;
import dev.outbox4j.relay.config.ConfigException;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.doctor.DoctorOutput;
import dev.outbox4j.relay.doctor.RelayDoctor;
import dev.outbox4j.relay.server.AdminToken;
import dev.outbox4j.relay.server.DashboardServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A running relay process: connection pool, store, transports, relay, optional LISTEN/NOTIFY wake-up, metrics, the
 * stats sampler and the dashboard server, started in that order and closed in reverse.
 *
 * <p>Why the server binds first: the demo's HTTP transport posts to a sink on the same server, so its endpoints are
 * known only once the port is (port 0 picks a free one). {@link #start} therefore binds, then asks for the
 * configuration at that port.
 *
 * <p>Thread-safe; {@link #close()} is idempotent and stops gracefully (the relay's shutdown grace).
 */
public final class RelayRuntime implements AutoCloseable {
  private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
  private final RelayConfig config;
  private final JdbcOutboxStore store;
  private final Relay relay;
  private final @Nullable DashboardServer dashboard;
  private final AdminToken token;
  private final Counter delivered;
  private boolean closed;

  /**
   * What a host adds to a runtime: the demo's sink pages and counters, and listeners.
   *
   * @param handlers paths to serve besides the dashboard's
   * @param counters named counts shown on the dashboard
   * @param listeners further relay listeners
   */
  public record Extras(Map<String, HttpHandler> handlers, Map<String, LongSupplier> counters,
      List<RelayListener> listeners) {
    /** @return nothing extra */
    public static Extras none() {
      return new Extras(Map.of(), Map.of(), List.of());
    }
  }

  private RelayRuntime(RelayConfig config, Extras extras, Clock clock, @Nullable HttpServer server) {
    this.config = config;
    try {
      HikariDataSource pool = RelayAssembly.dataSourceOnceReachable(config.database(), "outbox4j-relay");
      closeables.push(pool);
      store = RelayAssembly.store(pool, config.database());
      // Closed after the relay and everything else that uses it (this deque closes last in, first out); closing it
      // releases nothing, since every claim lives in the database.
      closeables.push(store);
      RelayAssembly.checkPostgresOnly(config, store);
      if (config.database().migrate()) {
        store.migrate();
      }
      RelayAssembly.installPostgresTriggers(config, store);
      if (config.database().notifyTrigger() && !config.relay().listenNotify()) {
        System.getLogger(RelayRuntime.class.getName()).log(System.Logger.Level.WARNING, "database.notify-trigger is"
            + " on but relay.listen-notify is off: the trigger notifies, and this relay does not listen");
      }
      logDoctorFindings(config, pool, clock);
      RoutingTransport transport = RelayAssembly.transport(config);
      closeables.push(transport);
      StartReport.log(config, transport.named());
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      closeables.push(registry::close);
      OutboxMetrics metrics = OutboxMetrics.builder(store).withRefreshInterval(Duration.ofSeconds(1)).withClock(clock)
          .build();
      closeables.push(metrics);
      metrics.bindTo(registry); // takes the first stats snapshot: the first scrape has numbers
      delivered = registry.get("outbox4j.delivered").counter();
      DestinationDeliveries deliveries = new DestinationDeliveries();
      List<RelayListener> listeners = new ArrayList<>();
      listeners.add(metrics);
      listeners.add(deliveries);
      listeners.addAll(extras.listeners());
      relay = RelayAssembly.relay(store, transport, config, listeners);
      StatsSampler sampler = new StatsSampler(store, delivered::count, deliveries::totals, clock,
          Duration.ofSeconds(1));
      closeables.push(sampler);
      token = AdminToken.configuredOrGenerated(config.server().adminToken(), config.server().adminTokenName(),
          new SecureRandom());
      if (server != null) {
        dashboard = new DashboardServer(server, store, sampler, registry, token, config.server().showPayloads(),
            relay::pausedDestinations, routes(config), config.server().failReadinessWhenDegraded(),
            extras.counters(), extras.handlers(), clock, config.server().allowedHosts(),
            () -> DoctorOutput.json(RelayDoctor.examine(config, pool, clock), config.database().displayUrl(),
                RelayDoctor.lease(config)));
        closeables.push(dashboard);
      } else {
        dashboard = null;
      }
      relay.start();
      closeables.push(relay);
      if (config.relay().listenNotify()) {
        HikariDataSource listenPool = RelayAssembly.dataSource(config.database().withPoolSize(2),
            "outbox4j-relay-listen");
        closeables.push(listenPool);
        closeables.push(PostgresWakeUpListener.start(listenPool, store.tableNames(), relay::wakeUp));
      }
      sampler.start();
      if (dashboard != null) {
        dashboard.start();
      }
    } catch (RuntimeException e) {
      closeQuietly();
      if (server != null) {
        server.stop(0);
      }
      throw e;
    }
  }

  /**
   * The doctor's findings that are not OK, one log line each, once at start; a doctor that cannot run is one line too,
   * never a reason not to start.
   */
  private static void logDoctorFindings(RelayConfig config, HikariDataSource pool, Clock clock) {
    try {
      RelayDoctor.log(RelayDoctor.examine(config, pool, clock));
    } catch (RuntimeException e) {
      System.getLogger(RelayRuntime.class.getName()).log(System.Logger.Level.WARNING, "doctor could not run: "
          + e.getMessage());
    }
  }

  /** @return each configured destination ({@value RelayConfig#ANY_DESTINATION} for the rest) → "name (type)" */
  private static Map<String, String> routes(RelayConfig config) {
    Map<String, String> routes = new java.util.TreeMap<>();
    config.destinations().forEach((destination, name) -> {
      RelayConfig.TransportSettings transport = config.transports().get(name);
      routes.put(destination, transport == null ? name : name + " (" + transport.type() + ")");
    });
    return routes;
  }

  /**
   * Starts everything.
   *
   * @param serverSettings where the dashboard listens (ignored when disabled)
   * @param configAtPort the configuration, given the port the server bound (or -1 without a server)
   * @param extras what the host adds
   * @param clock the time source
   * @return the running runtime
   * @throws ConfigException when the configuration is refused by the library
   * @throws OutboxException when the database, the address or a transport cannot be reached
   */
  public static RelayRuntime start(RelayConfig.Server serverSettings, IntFunction<RelayConfig> configAtPort,
      Extras extras, Clock clock) {
    HttpServer server = null;
    int port = -1;
    if (serverSettings.enabled()) {
      try {
        server = OwnServer.create(serverSettings);
        port = server.getAddress().getPort();
      } catch (IOException | RuntimeException e) {
        throw new OutboxException("cannot listen on " + serverSettings.bind() + ":" + serverSettings.port() + ": "
            + RelayAssembly.rootMessage(e), e);
      }
    }
    RelayConfig config;
    try {
      config = configAtPort.apply(port);
    } catch (RuntimeException e) {
      if (server != null) {
        server.stop(0);
      }
      throw e;
    }
    return new RelayRuntime(config, extras, clock, server);
  }

  /**
   * @param config the configuration
   * @return the running runtime, its server as configured
   */
  public static RelayRuntime start(RelayConfig config) {
    return start(config.server(), port -> config, Extras.none(), Clock.systemUTC());
  }

  /** @return the configuration in force */
  public RelayConfig config() {
    return config;
  }

  /** @return the store */
  public JdbcOutboxStore store() {
    return store;
  }

  /** @return the relay */
  public Relay relay() {
    return relay;
  }

  /** @return the admin token (configured or generated) */
  public AdminToken adminToken() {
    return token;
  }

  /** @return entries this process delivered since it started */
  public long deliveredCount() {
    return (long) delivered.count();
  }

  /** @return the dashboard's base URL, for example {@code http://127.0.0.1:8080}, or empty without a server */
  public String baseUrl() {
    return dashboard == null ? "" : config.server().scheme() + "://" + dashboard.host() + ":" + dashboard.port();
  }

  /** @return the dashboard's port, or -1 without a server */
  public int port() {
    return dashboard == null ? -1 : dashboard.port();
  }

  /**
   * Stops: the wake-up listener, then the relay (deliveries in flight get the grace period; nothing unconfirmed is
   * marked delivered), the sampler, the server, the transports, the store (which holds nothing: every claim lives in
   * the database) and the pools. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeQuietly();
  }

  private void closeQuietly() {
    while (!closeables.isEmpty()) {
      try {
        closeables.pop().close();
      } catch (Exception e) {
        System.getLogger(RelayRuntime.class.getName()).log(System.Logger.Level.WARNING, "closing failed", e);
      }
    }
  }
}
