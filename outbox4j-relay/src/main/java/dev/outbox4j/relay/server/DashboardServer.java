package dev.outbox4j.relay.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.relay.runtime.StatsSampler;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * </ul>
 *
 * <p>Thread-safe. Handlers run on a small private executor.
 */
public final class DashboardServer implements AutoCloseable {
  /** The routes key of the transport for every destination not named (the configuration's {@code '*'}). */
  private static final String ANY_DESTINATION = "*";

  private final HttpServer server;
  private final OutboxStore store;
  private final StatsSampler sampler;
  private final PrometheusMeterRegistry registry;
  private final AdminToken token;
  private final boolean showPayloads;
  private final Supplier<List<DestinationStatus>> pausedDestinations;
  private final Map<String, String> routes;
  private final boolean failReadinessWhenDegraded;
  private final Map<String, LongSupplier> extraCounters;
  private final Clock clock;
  private final HostCheck hosts;
  private final ExecutorService executor;

  /**
   * @param server a bound, not yet started server
   * @param store the outbox
   * @param sampler the outbox's readings
   * @param registry the metrics to expose
   * @param token what admin actions need
   * @param showPayloads whether the quarantined list carries payloads
   * @param pausedDestinations the relay's paused destinations ({@code Relay::pausedDestinations})
   * @param routes the transport each configured destination goes to, as shown ({@code "webhooks (http)"}); the key
   *     {@code *} for every other destination
   * @param failReadinessWhenDegraded whether readiness answers 503 rather than 200 while a destination is paused
   * @param extraCounters further named counts for the page (the demo's sink), in display order
   * @param extraHandlers further paths to serve (the demo's sink)
   * @param clock the time of requeues
   * @param allowedHosts host names answered besides IP addresses, {@code localhost} and the bound address
   *     ({@code server.allowed-hosts}); a request naming another in its {@code Host} header is answered 421
   * @param doctor runs the doctor's checks and answers their JSON form, for {@code GET /api/doctor} (admin token)
   */
  public DashboardServer(HttpServer server, OutboxStore store, StatsSampler sampler, PrometheusMeterRegistry registry,
      AdminToken token, boolean showPayloads, Supplier<List<DestinationStatus>> pausedDestinations,
      Map<String, String> routes, boolean failReadinessWhenDegraded, Map<String, LongSupplier> extraCounters,
      Map<String, HttpHandler> extraHandlers, Clock clock, List<String> allowedHosts,
      Supplier<Map<String, Object>> doctor) {
    this.server = server;
    this.store = store;
    this.sampler = sampler;
    this.registry = registry;
    this.token = token;
    this.showPayloads = showPayloads;
    this.pausedDestinations = pausedDestinations;
    this.routes = Map.copyOf(routes);
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
    server.createContext("/api/status", guarded(this::status));
    server.createContext("/api/destinations", guarded(this::destinations));
    OperatorApi operator = new OperatorApi(store, sampler, token, showPayloads, clock);
    server.createContext("/api/quarantined", guarded(exchange -> operator.serve(exchange, operator::quarantined)));
    server.createContext("/api/quarantine/groups", guarded(exchange -> operator.serve(exchange, operator::groups)));
    server.createContext("/api/entries/", guarded(exchange -> operator.serve(exchange, operator::entryAction)));
    server.createContext("/api/actions/", guarded(exchange -> operator.serve(exchange, operator::action)));
    server.createContext("/api/audit", guarded(exchange -> operator.serve(exchange, operator::audit)));
    server.createContext("/api/pauses", guarded(exchange -> operator.serve(exchange, operator::pauses)));
    server.createContext("/api/doctor", guarded(new DoctorEndpoint(token, doctor)::serve));
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
        handler.handle(exchange);
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

  private void status(HttpExchange exchange) throws IOException {
    StatsSampler.Sample latest = sampler.latest();
    Map<String, Object> body = new LinkedHashMap<>();
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
    body.put("pausedDestinations", pausedDestinations.get().size());
    sendJson(exchange, 200, body);
  }

  private void destinations(HttpExchange exchange) throws IOException {
    Instant now = clock.instant();
    List<Object> paused = new ArrayList<>();
    Map<String, DestinationStatus> pausedByName = new TreeMap<>();
    for (DestinationStatus status : pausedDestinations.get()) {
      paused.add(PauseView.describe(status, now));
      pausedByName.put(status.destination(), status);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("at", now.toEpochMilli());
    body.put("paused", paused);
    body.put("destinations", table(pausedByName, now));
    sendJson(exchange, 200, body);
  }

  /**
   * The destinations table: one row per configured destination, per destination with undelivered entries in the
   * latest reading, per paused destination, and per destination this relay delivered to in the last reading; by name.
   */
  private List<Object> table(Map<String, DestinationStatus> paused, Instant now) {
    StatsSampler.Sample latest = sampler.latest();
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

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
  }

  private void metrics(HttpExchange exchange) throws IOException {
    send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
  }

  private void ready(HttpExchange exchange) throws IOException {
    if (!sampler.ready()) {
      String error = sampler.lastError();
      sendJson(exchange, 503, Map.of("status", "DOWN", "reason",
          error == null ? "the database has not answered recently" : "the database does not answer: " + error));
      return;
    }
    List<DestinationStatus> paused = pausedDestinations.get();
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
