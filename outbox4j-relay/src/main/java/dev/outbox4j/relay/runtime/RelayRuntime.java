package dev.outbox4j.relay.runtime;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.OutboxException;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.relay.config.ConfigException;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.server.AdminToken;
import dev.outbox4j.relay.server.DashboardServer;
import dev.outbox4j.spi.Transport;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A running relay process: the transports (one set per configured outbox), the metrics registry, one
 * {@link OutboxLane} per outbox (pool, store, relay, wake-up, stats sampler), the tenant discoveries, and the dashboard
 * server, started in that order and closed in reverse.
 *
 * <p>Why the server binds first: the demo's HTTP transport posts to a sink on the same server, so its endpoints are
 * known only once the port is (port 0 picks a free one). {@link #start} therefore binds, then asks for the
 * configuration at that port.
 *
 * <p>Why lanes start differently: a configuration without {@code outboxes:} starts its one outbox at once and fails
 * the start when its database stays unreachable past {@code database.startup-wait}, as it always did. A configuration
 * with {@code outboxes:} starts each outbox on a thread of its own and keeps trying those whose database cannot be
 * reached, so one database down neither stops the process nor any other outbox: readiness names the outbox that is
 * down, and it joins when its database answers.
 *
 * <p>Thread-safe; {@link #close()} is idempotent and stops gracefully (the relay's shutdown grace).
 */
public final class RelayRuntime implements AutoCloseable {
  /** How long {@link #start} waits for each outbox's first attempt to start before serving anyway. */
  private static final Duration FIRST_ATTEMPT = Duration.ofSeconds(30);

  private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
  private final RelayConfig config;
  private final Map<String, OutboxLane> lanes = new ConcurrentSkipListMap<>();
  private final List<TenantDiscovery> discoveries = new ArrayList<>();
  private final @Nullable DashboardServer dashboard;
  private final AdminToken token;
  /** The transports each configured outbox routes to, by outbox; a tenants entry's tenants share the entry's. */
  private final Map<String, Map<String, Transport>> transports = new java.util.concurrent.ConcurrentHashMap<>();
  private final PrometheusMeterRegistry registry;
  private final SharedPools pools = new SharedPools();
  private final WakeUps wakeUps = new WakeUps();
  private final FairShare fairShare;
  private final Extras extras;
  private final Clock clock;
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

  private RelayRuntime(RelayConfig config, Extras extras, Clock clock, @Nullable HttpServer server,
      FairShare fairShare) {
    this.config = config;
    this.fairShare = fairShare;
    this.extras = extras;
    this.clock = clock;
    try {
      closeables.push(pools);
      closeables.push(() -> transports.values().forEach(set -> set.values().forEach(Transport::close)));
      for (RelayConfig.Outbox outbox : config.outboxes().values()) {
        // Each configured outbox sends through transports of its own, built from the shared declarations: a busy
        // outbox's deliveries then never queue in a client (connections, I/O thread) a quiet one's need.
        transports.put(outbox.name(), config.named() ? RelayAssembly.transports(config, outbox.destinations())
            : RelayAssembly.transports(config));
      }
      registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      closeables.push(registry::close);
      closeables.push(wakeUps);
      closeables.push(this::closeLanes);
      if (!config.named()) {
        OutboxLane lane = lane(config.firstOutboxName(), config);
        lanes.put(lane.name(), lane);
        lane.startNow();
      } else {
        for (RelayConfig.Outbox outbox : config.outboxes().values()) {
          if (outbox.tenants() == null) {
            OutboxLane lane = lane(outbox.name(), config.of(outbox));
            lanes.put(lane.name(), lane);
            lane.startInBackground();
          } else {
            TenantDiscovery discovery = new TenantDiscovery(outbox, pools, schemas -> tenants(outbox, schemas));
            discoveries.add(discovery);
            closeables.push(discovery);
            discovery.start();
          }
        }
        awaitFirstAttempts();
      }
      token = AdminToken.configuredOrGenerated(config.server().adminToken(), config.server().adminTokenName(),
          new SecureRandom());
      if (server != null) {
        dashboard = new DashboardServer(server, this::lanes, registry, token, config.server().showPayloads(),
            config.server().failReadinessWhenDegraded(), extras.counters(), extras.handlers(), clock,
            config.server().allowedHosts());
        closeables.push(dashboard);
        dashboard.start();
      } else {
        dashboard = null;
      }
    } catch (RuntimeException e) {
      closeQuietly();
      if (server != null) {
        server.stop(0);
      }
      throw e;
    }
  }

  private OutboxLane lane(String name, RelayConfig outbox) {
    int separator = name.indexOf(RelayConfig.TENANT_SEPARATOR);
    Map<String, Transport> own = transports.get(separator < 0 ? name : name.substring(0, separator));
    return new OutboxLane(name, outbox, own, registry, pools, wakeUps, fairShare, extras.listeners(), clock);
  }

  /** Starts an outbox for each new tenant schema and closes those of the schemas that went away. */
  private synchronized void tenants(RelayConfig.Outbox entry, Set<String> schemas) {
    if (closed) {
      return;
    }
    String prefix = entry.name() + RelayConfig.TENANT_SEPARATOR;
    for (String name : List.copyOf(lanes.keySet())) {
      if (name.startsWith(prefix) && !schemas.contains(name.substring(prefix.length()))) {
        OutboxLane gone = lanes.remove(name);
        System.getLogger(RelayRuntime.class.getName()).log(System.Logger.Level.INFO, "outbox " + name
            + ": its schema is no longer a tenant; stopping it");
        gone.close();
      }
    }
    for (String schema : schemas) {
      RelayConfig.Outbox tenant = entry.tenant(schema);
      if (!lanes.containsKey(tenant.name())) {
        OutboxLane lane = lane(tenant.name(), config.of(tenant));
        lanes.put(lane.name(), lane);
        lane.startInBackground();
      }
    }
  }

  private void awaitFirstAttempts() {
    long deadline = System.nanoTime() + FIRST_ATTEMPT.toNanos();
    try {
      for (OutboxLane lane : lanes.values()) {
        lane.awaitFirstAttempt(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the outboxes", e);
    }
  }

  /** Closes every outbox, each on its own thread, so their shutdown graces run at once, not one after another. */
  private void closeLanes() {
    List<Thread> closing = new ArrayList<>();
    for (OutboxLane lane : lanes.values()) {
      Thread thread = new Thread(lane::close, "outbox4j-stop-" + lane.name());
      thread.start();
      closing.add(thread);
    }
    for (Thread thread : closing) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** @return every outbox's lane, by name */
  public List<OutboxLane> lanes() {
    return List.copyOf(lanes.values());
  }

  /**
   * @param name an outbox's name (a tenant's is {@code <entry>:<schema>})
   * @return its lane, if this process runs it
   */
  public java.util.Optional<OutboxLane> lane(String name) {
    return java.util.Optional.ofNullable(lanes.get(name));
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
    return new RelayRuntime(config, extras, clock, server, new FairShare(System::nanoTime));
  }

  /**
   * @param config the configuration, its server disabled
   * @param fairShare how its outboxes share the process (a test's, on a ticker of its own)
   * @return the running runtime
   */
  static RelayRuntime start(RelayConfig config, FairShare fairShare) {
    if (config.server().enabled()) {
      throw new IllegalArgumentException("a runtime with a fair share of its own runs without a server");
    }
    return new RelayRuntime(config, Extras.none(), Clock.systemUTC(), null, fairShare);
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

  /**
   * @return the store of the first outbox (the only one without {@code outboxes:})
   * @throws IllegalStateException if that outbox is not running yet
   */
  public JdbcOutboxStore store() {
    return running(first()).store();
  }

  /**
   * @return the relay of the first outbox (the only one without {@code outboxes:})
   * @throws IllegalStateException if that outbox is not running yet
   */
  public Relay relay() {
    return running(first()).relay();
  }

  private OutboxLane first() {
    OutboxLane lane = lanes.get(config.firstOutboxName());
    if (lane == null) {
      lane = lanes.values().stream().findFirst()
          .orElseThrow(() -> new IllegalStateException("no outbox runs in this process"));
    }
    return lane;
  }

  private static OutboxLane running(OutboxLane lane) {
    if (lane.state() != OutboxLane.State.RUNNING) {
      throw new IllegalStateException("outbox " + lane.name() + " is " + lane.state() + ": " + lane.lastError());
    }
    return lane;
  }

  /** @return the admin token (configured or generated) */
  public AdminToken adminToken() {
    return token;
  }

  /** @return entries this process delivered since it started */
  public long deliveredCount() {
    return lanes.values().stream().mapToLong(OutboxLane::deliveredCount).sum();
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
   * Stops: the server, the tenant discoveries, then every outbox at once (its wake-up, its relay, whose deliveries in
   * flight get the grace period and nothing unconfirmed is marked delivered, its sampler and store), the listeners,
   * the metrics, the transports and the pools. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
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
