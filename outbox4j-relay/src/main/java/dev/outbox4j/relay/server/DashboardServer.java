package dev.outbox4j.relay.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.runtime.OutboxLane;
import dev.outbox4j.relay.runtime.StatsSampler;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The relay's web face, on the JDK's own HTTP server: the dashboard page and its script (shipped in the jar, no CDN),
 * its JSON API, {@code /metrics} in the Prometheus text format, and {@code /health/live} / {@code /health/ready}.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li>Reads ({@code GET}) are open to whoever can reach the address, which is 127.0.0.1 unless configured otherwise,
 *       and who names it by an IP address, {@code localhost} or a name in {@code server.allowed-hosts}: any other
 *       {@code Host} is answered 421, so a DNS-rebinding page in an operator's browser reads nothing
 *       ({@link HostCheck}).
 *       Actions that change the outbox or a destination ({@code POST /api/actions/...}, {@code /api/entries/...}) need
 *       the admin token as a bearer header: none is 401, a wrong one 403, and neither touches the store. Each is asked
 *       for its count first and applied only with the count the operator confirmed, and is recorded in the audit
 *       log under the token's name ({@link OperatorApi}).
 *   <li>Payloads stay out of every response unless {@code server.show-payloads} is on: they are business data.
 *   <li>The page's script builds the page with {@code textContent} only, and the responses forbid inline scripts
 *       ({@code Content-Security-Policy}), so an error text or key holding markup is shown, never run.
 *   <li>Counts come from {@link StatsSampler}, so many open dashboards cost the database nothing extra.
 *   <li>The destinations table joins three sources: the counts per destination from the sampler's reading (waiting,
 *       blocked behind a quarantined or parked entry, in flight, quarantined, ages), the transport each destination is
 *       routed to by the configuration, and the relay's own view of which it has paused. Every configured destination
 *       has a row, and so has every destination with undelivered entries among the sampler's
 *       {@value StatsSampler#DESTINATIONS} most behind, and every paused one.
 *   <li>Paused destinations come from the relay itself ({@code Relay.pausedDestinations()}), which judges outages per
 *       destination: the same list feeds the page, {@code /api/destinations} and {@code /health/ready}. A paused
 *       destination makes readiness {@code DEGRADED}, answered 200 by default: restarting or unrouting a relay does
 *       not bring a remote endpoint back, while its other destinations still flow. {@code
 *       health.fail-readiness-when-degraded} makes it 503 for those who want that.
 *   <li>Several outboxes: every read and action concerns one outbox, named by the query parameter
 *       {@code outbox=NAME} (the first outbox when absent, so the single-outbox URLs are unchanged);
 *       {@code GET /api/outboxes} summarises all of them. Each outbox is a lane of its own: one whose database is
 *       down answers 503 for its own requests, while readiness stays 200 and names it, as long as any outbox runs.
 * </ul>
 *
 * <p>Thread-safe. Handlers run on a small private executor.
 */
public final class DashboardServer implements AutoCloseable {
  /** The routes key of the transport for every destination not named (the configuration's {@code '*'}). */
  private static final String ANY_DESTINATION = "*";

  private final HttpServer server;
  private final Supplier<List<OutboxLane>> lanes;
  private final PrometheusMeterRegistry registry;
  private final AdminToken token;
  private final boolean showPayloads;
  private final Map<OutboxLane, OperatorApi> operators = Collections.synchronizedMap(new WeakHashMap<>());
  private final boolean failReadinessWhenDegraded;
  private final Map<String, LongSupplier> extraCounters;
  private final Clock clock;
  private final HostCheck hosts;
  private final ExecutorService executor;

  /**
   * @param server a bound, not yet started server
   * @param lanes the outboxes, the first being the one a request that names none concerns
   * @param registry the metrics to expose
   * @param token what admin actions need
   * @param showPayloads whether the quarantined list carries payloads
   * @param failReadinessWhenDegraded whether readiness answers 503 rather than 200 while a destination is paused
   * @param extraCounters further named counts for the page (the demo's sink), in display order
   * @param extraHandlers further paths to serve (the demo's sink)
   * @param clock the time of requeues
   * @param allowedHosts host names answered besides IP addresses, {@code localhost} and the bound address
   *     ({@code server.allowed-hosts}); a request naming another in its {@code Host} header is answered 421
   */
  public DashboardServer(HttpServer server, Supplier<List<OutboxLane>> lanes, PrometheusMeterRegistry registry,
      AdminToken token, boolean showPayloads, boolean failReadinessWhenDegraded,
      Map<String, LongSupplier> extraCounters, Map<String, HttpHandler> extraHandlers, Clock clock,
      List<String> allowedHosts) {
    this.server = server;
    this.lanes = lanes;
    this.registry = registry;
    this.token = token;
    this.showPayloads = showPayloads;
    this.failReadinessWhenDegraded = failReadinessWhenDegraded;
    this.extraCounters = new LinkedHashMap<>(extraCounters);
    this.clock = clock;
    this.hosts = new HostCheck(server.getAddress().getHostString(), allowedHosts);
    this.executor = Executors.newFixedThreadPool(4, runnable -> {
      Thread thread = new Thread(runnable, "outbox4j-dashboard");
      thread.setDaemon(true);
      return thread;
    });
    server.setExecutor(executor);
    server.createContext("/", guarded(this::page));
    server.createContext("/api/status", guarded(exchange -> status(exchange, running(exchange))));
    server.createContext("/api/outboxes", guarded(this::outboxes));
    server.createContext("/api/destinations", guarded(exchange -> destinations(exchange, running(exchange))));
    server.createContext("/api/quarantined", guarded(operator(api -> api::quarantined)));
    server.createContext("/api/quarantine/groups", guarded(operator(api -> api::groups)));
    server.createContext("/api/entries/", guarded(operator(api -> api::entryAction)));
    server.createContext("/api/actions/", guarded(operator(api -> api::action)));
    server.createContext("/api/audit", guarded(operator(api -> api::audit)));
    server.createContext("/api/pauses", guarded(operator(api -> api::pauses)));
    server.createContext("/api/doctor", guarded(exchange -> {
      OutboxLane lane = running(exchange);
      new DoctorEndpoint(token, lane::doctor).serve(exchange);
    }));
    server.createContext("/metrics", guarded(this::metrics));
    server.createContext("/health/live", guarded(exchange -> send(exchange, 200, "application/json",
        "{\"status\":\"UP\"}")));
    server.createContext("/health/ready", guarded(this::ready));
    extraHandlers.forEach((path, handler) -> server.createContext(path, handler));
  }

  /** Starts serving. */
  public void start() {
    server.start();
  }

  /** @return the port it listens on */
  public int port() {
    return server.getAddress().getPort();
  }

  /** @return the host it listens on, as a URL host */
  public String host() {
    String host = server.getAddress().getHostString();
    return host.contains(":") ? "[" + host + "]" : host;
  }

  /** A request handler that may throw. */
  interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  /** A request for an outbox that is not there, or not running: answered with its status and message. */
  private static final class NoOutbox extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final transient Map<String, Object> body;

    NoOutbox(int status, Map<String, Object> body) {
      super(String.valueOf(body.get("error")), null, false, false);
      this.status = status;
      this.body = body;
    }
  }

  /**
   * @return the lane the request names ({@code ?outbox=NAME}), or the first
   * @throws NoOutbox 404 when no outbox has that name
   */
  private OutboxLane lane(HttpExchange exchange) {
    List<OutboxLane> all = lanes.get();
    String name = OperatorApi.query(exchange).get("outbox");
    if (name == null || name.isEmpty()) {
      if (all.isEmpty()) {
        throw new NoOutbox(503, Map.of("error", "no outbox runs yet"));
      }
      return all.get(0);
    }
    return all.stream().filter(lane -> lane.name().equals(name)).findFirst()
        .orElseThrow(() -> new NoOutbox(404, Map.of("error", "no outbox named '" + name + "' (outboxes: "
            + String.join(", ", all.stream().map(OutboxLane::name).toList()) + ")")));
  }

  /**
   * @return the lane the request names, running
   * @throws NoOutbox 404 when there is none, 503 when its database has not been reached yet
   */
  private OutboxLane running(HttpExchange exchange) {
    OutboxLane lane = lane(exchange);
    if (lane.state() != OutboxLane.State.RUNNING || lane.sampler() == null) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("outbox", lane.name());
      body.put("ready", false);
      body.put("state", lane.state().name());
      body.put("error", "outbox " + lane.name() + " is not running: " + lane.lastError());
      throw new NoOutbox(503, body);
    }
    return lane;
  }

  /** @return a handler that runs the operator request on the named outbox's {@link OperatorApi} */
  private Handler operator(java.util.function.Function<OperatorApi, Handler> action) {
    return exchange -> {
      OutboxLane lane = running(exchange);
      OperatorApi api = operators.computeIfAbsent(lane, running -> new OperatorApi(running.name(), running.store(),
          running.sampler(), token, showPayloads, clock));
      api.serve(exchange, action.apply(api));
    };
  }

  private HttpHandler guarded(Handler handler) {
    return exchange -> {
      try (exchange) {
        exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.getResponseHeaders().set("Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
        if (!hosts.allows(exchange.getRequestHeaders().getFirst("Host"))) {
          // a DNS-rebinding page names its own host; nothing of the outbox is read for it
          send(exchange, 421, "application/json", Json.write(Map.of("error", "this server does not answer to that"
              + " host name; list it in server.allowed-hosts to use it")));
          return;
        }
        try {
          handler.handle(exchange);
        } catch (NoOutbox e) {
          sendJson(exchange, e.status, e.body);
        }
      } catch (RuntimeException e) {
        try {
          send(exchange, 500, "application/json", Json.write(Map.of("error", String.valueOf(e.getMessage()))));
        } catch (IOException | RuntimeException ignored) {
          // the response was already under way; nothing more to tell the client
        }
      }
    };
  }

  private void page(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    switch (path) {
      case "/", "/index.html" -> resource(exchange, "index.html", "text/html; charset=utf-8");
      case "/dashboard.js" -> resource(exchange, "dashboard.js", "text/javascript; charset=utf-8");
      case "/operator.js" -> resource(exchange, "operator.js", "text/javascript; charset=utf-8");
      case "/dashboard.css" -> resource(exchange, "dashboard.css", "text/css; charset=utf-8");
      default -> send(exchange, 404, "text/plain; charset=utf-8", "not found");
    }
  }

  private void resource(HttpExchange exchange, String name, String type) throws IOException {
    try (InputStream in = DashboardServer.class.getResourceAsStream("/dev/outbox4j/relay/dashboard/" + name)) {
      if (in == null) {
        send(exchange, 404, "text/plain; charset=utf-8", "not found");
        return;
      }
      send(exchange, 200, type, in.readAllBytes());
    }
  }

  private void status(HttpExchange exchange, OutboxLane lane) throws IOException {
    StatsSampler sampler = lane.sampler();
    StatsSampler.Sample latest = sampler.latest();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("outbox", lane.name());
    body.put("outboxes", lanes.get().stream().map(OutboxLane::name).toList());
    body.put("ready", sampler.ready());
    body.put("error", sampler.lastError());
    if (latest != null) {
      body.put("at", latest.at().toEpochMilli());
      body.put("pending", latest.stats().pending());
      body.put("waiting", latest.stats().waiting());
      body.put("blocked", latest.stats().blocked());
      body.put("inFlight", latest.stats().inFlight());
      body.put("quarantined", latest.stats().quarantined());
      body.put("deliveredPerSecond", latest.deliveredPerSecond());
      body.put("lagSeconds", latest.lagSeconds());
      body.put("blockedSeconds", latest.blockedSeconds());
      body.put("delivered", latest.deliveredTotal());
    }
    // [time, delivered per second, lag, oldest blocked], oldest first
    List<Object> history = new ArrayList<>();
    for (StatsSampler.Sample sample : sampler.history()) {
      history.add(List.of(sample.at().toEpochMilli(), sample.deliveredPerSecond(), sample.lagSeconds(),
          sample.blockedSeconds()));
    }
    body.put("history", history);
    Map<String, Object> extra = new LinkedHashMap<>();
    extraCounters.forEach((name, counter) -> extra.put(name, counter.getAsLong()));
    body.put("extra", extra);
    body.put("showPayloads", showPayloads);
    body.put("pausedDestinations", lane.pausedDestinations().size());
    sendJson(exchange, 200, body);
  }

  /**
   * {@code GET /api/outboxes}: one row per outbox — its state, the error that keeps it from running, and from its
   * latest reading the entries waiting, blocked, in flight and quarantined, the lag, the oldest blocked entry, the
   * delivered rate and the destinations its relay paused.
   */
  private void outboxes(HttpExchange exchange) throws IOException {
    List<Object> rows = new ArrayList<>();
    for (OutboxLane lane : lanes.get()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("outbox", lane.name());
      StatsSampler sampler = lane.sampler();
      boolean up = lane.state() == OutboxLane.State.RUNNING && sampler != null && sampler.ready();
      row.put("state", up ? "UP" : lane.state() == OutboxLane.State.RUNNING ? "DOWN" : lane.state().name());
      row.put("error", up ? null : sampler == null ? lane.lastError() : sampler.lastError());
      StatsSampler.Sample latest = sampler == null ? null : sampler.latest();
      OutboxStats stats = latest == null ? OutboxStats.EMPTY : latest.stats();
      row.put("waiting", stats.waiting());
      row.put("blocked", stats.blocked());
      row.put("inFlight", stats.inFlight());
      row.put("quarantined", stats.quarantined());
      row.put("lagSeconds", latest == null ? 0.0 : latest.lagSeconds());
      row.put("blockedSeconds", latest == null ? 0.0 : latest.blockedSeconds());
      row.put("deliveredPerSecond", latest == null ? 0.0 : latest.deliveredPerSecond());
      row.put("pausedDestinations", lane.pausedDestinations().stream().map(DestinationStatus::destination).toList());
      row.put("at", latest == null ? null : latest.at().toEpochMilli());
      rows.add(row);
    }
    sendJson(exchange, 200, Map.of("outboxes", rows));
  }

  private void destinations(HttpExchange exchange, OutboxLane lane) throws IOException {
    Instant now = clock.instant();
    List<Object> paused = new ArrayList<>();
    Map<String, DestinationStatus> pausedByName = new TreeMap<>();
    for (DestinationStatus status : lane.pausedDestinations()) {
      paused.add(PauseView.describe(status, now));
      pausedByName.put(status.destination(), status);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("outbox", lane.name());
    body.put("at", now.toEpochMilli());
    body.put("paused", paused);
    body.put("destinations", table(lane, pausedByName, now));
    sendJson(exchange, 200, body);
  }

  /**
   * The destinations table: one row per configured destination, per destination with undelivered entries in the
   * latest reading, per paused destination, and per destination this relay delivered to in the last reading; by name.
   */
  private List<Object> table(OutboxLane lane, Map<String, DestinationStatus> paused, Instant now) {
    Map<String, String> routes = routes(lane.config());
    StatsSampler.Sample latest = lane.sampler().latest();
    Map<String, OutboxStats> counts = new TreeMap<>();
    Map<String, Double> rates = Map.of();
    if (latest != null) {
      for (DestinationStats row : latest.destinations()) {
        counts.put(row.destination(), row.stats());
      }
      rates = latest.deliveredPerSecondByDestination();
    }
    java.util.SortedSet<String> names = new java.util.TreeSet<>(counts.keySet());
    routes.keySet().stream().filter(name -> !name.equals(ANY_DESTINATION)).forEach(names::add);
    names.addAll(paused.keySet());
    rates.forEach((name, rate) -> {
      if (rate > 0) {
        names.add(name);
      }
    });
    List<Object> rows = new ArrayList<>();
    for (String name : names) {
      OutboxStats stats = counts.getOrDefault(name, OutboxStats.EMPTY);
      DestinationStatus status = paused.get(name);
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("destination", name);
      row.put("transport", routes.getOrDefault(name, routes.get(ANY_DESTINATION)));
      row.put("state", status == null ? "flowing" : PauseView.describe(status, now).get("state"));
      row.put("cause", status == null ? null : status.cause().name());
      row.put("waiting", stats.waiting());
      row.put("blocked", stats.blocked());
      row.put("inFlight", stats.inFlight());
      row.put("quarantined", stats.quarantined());
      row.put("deliveredPerSecond", rates.getOrDefault(name, 0.0));
      row.put("lagSeconds", latest == null ? 0.0 : seconds(stats.lag(latest.at())));
      row.put("blockedSeconds", latest == null ? 0.0 : seconds(stats.blockedAge(latest.at())));
      row.put("pause", status == null ? null : PauseView.describe(status, now));
      rows.add(row);
    }
    return rows;
  }

  /** @return each configured destination ({@code *} for the rest) → "name (type)" */
  private static Map<String, String> routes(RelayConfig config) {
    Map<String, String> routes = new TreeMap<>();
    config.destinations().forEach((destination, name) -> {
      RelayConfig.TransportSettings transport = config.transports().get(name);
      routes.put(destination, transport == null ? name : name + " (" + transport.type() + ")");
    });
    return routes;
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }

  private void metrics(HttpExchange exchange) throws IOException {
    send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
  }

  private void ready(HttpExchange exchange) throws IOException {
    List<OutboxLane> all = lanes.get();
    if (all.size() == 1 && all.get(0).name().equals(RelayConfig.DEFAULT_OUTBOX)) {
      ready(exchange, all.get(0));
    } else {
      readyOfAll(exchange, all);
    }
  }

  /**
   * Readiness of several outboxes: {@code UP} when all run, read their database and have no paused destination;
   * {@code DEGRADED} (200, or 503 with {@code health.fail-readiness-when-degraded}) when some do not, naming them;
   * {@code DOWN} (503) when none reads its database, since then the process does no work at all.
   */
  private void readyOfAll(HttpExchange exchange, List<OutboxLane> all) throws IOException {
    Map<String, Object> outboxes = new LinkedHashMap<>();
    List<String> down = new ArrayList<>();
    List<String> degraded = new ArrayList<>();
    Instant now = clock.instant();
    for (OutboxLane lane : all) {
      Map<String, Object> one = new LinkedHashMap<>();
      StatsSampler sampler = lane.sampler();
      if (lane.state() != OutboxLane.State.RUNNING || sampler == null || !sampler.ready()) {
        String error = sampler == null ? lane.lastError() : sampler.lastError();
        one.put("status", "DOWN");
        one.put("reason", error == null ? "the database has not answered recently"
            : "the database does not answer: " + error);
        down.add(lane.name());
      } else if (!lane.pausedDestinations().isEmpty()) {
        List<String> names = lane.pausedDestinations().stream().map(DestinationStatus::destination).toList();
        one.put("status", "DEGRADED");
        one.put("reason", (names.size() == 1 ? "destination paused: " : "destinations paused: ")
            + String.join(", ", names));
        one.put("paused", lane.pausedDestinations().stream().map(status -> PauseView.describe(status, now)).toList());
        degraded.add(lane.name());
      } else {
        one.put("status", "UP");
      }
      outboxes.put(lane.name(), one);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    boolean none = all.isEmpty() || down.size() == all.size();
    String status = none ? "DOWN" : down.isEmpty() && degraded.isEmpty() ? "UP" : "DEGRADED";
    body.put("status", status);
    if (!down.isEmpty() || !degraded.isEmpty()) {
      List<String> reasons = new ArrayList<>();
      if (!down.isEmpty()) {
        reasons.add("outbox database down: " + String.join(", ", down));
      }
      if (!degraded.isEmpty()) {
        reasons.add("outbox with paused destinations: " + String.join(", ", degraded));
      }
      body.put("reason", all.isEmpty() ? "no outbox runs yet" : String.join("; ", reasons));
    }
    body.put("outboxes", outboxes);
    int code = status.equals("UP") ? 200 : status.equals("DOWN") || failReadinessWhenDegraded ? 503 : 200;
    sendJson(exchange, code, body);
  }

  private void ready(HttpExchange exchange, OutboxLane lane) throws IOException {
    StatsSampler sampler = lane.sampler();
    if (sampler == null || !sampler.ready()) {
      String error = sampler == null ? lane.lastError() : sampler.lastError();
      sendJson(exchange, 503, Map.of("status", "DOWN", "reason",
          error == null ? "the database has not answered recently" : "the database does not answer: " + error));
      return;
    }
    List<DestinationStatus> paused = lane.pausedDestinations();
    if (paused.isEmpty()) {
      send(exchange, 200, "application/json", "{\"status\":\"UP\"}");
      return;
    }
    Instant now = clock.instant();
    List<String> names = paused.stream().map(DestinationStatus::destination).toList();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "DEGRADED");
    body.put("reason", (names.size() == 1 ? "destination paused: " : "destinations paused: ")
        + String.join(", ", names));
    body.put("pausedDestinations", names);
    body.put("paused", paused.stream().map(status -> PauseView.describe(status, now)).toList());
    sendJson(exchange, failReadinessWhenDegraded ? 503 : 200, body);
  }

  static void sendJson(HttpExchange exchange, int status, Object body) throws IOException {
    send(exchange, status, "application/json", Json.write(body));
  }

  private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
    send(exchange, status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /** Stops serving at once; requests under way are cut. */
  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
