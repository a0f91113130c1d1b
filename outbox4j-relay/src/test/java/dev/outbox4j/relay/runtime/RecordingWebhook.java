package dev.outbox4j.relay.runtime;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;

/**
 * A webhook receiver for the tests: records each payload in arrival order ({@link #received()}, before answering, so
 * the order is the order of sending) and, once its 204 answer is written, as confirmed ({@link #confirmed()});
 * optionally after a delay per request (to keep deliveries in flight). Paths given to {@link #refuse} answer 503 (an
 * endpoint that is down) and record nothing, until {@link #accept} is called for them.
 */
final class RecordingWebhook implements AutoCloseable {
  private final HttpServer server;
  private final List<String> received = new ArrayList<>();
  private final List<String> confirmed = new ArrayList<>();
  private final List<String> traceparents = new ArrayList<>();
  private final java.util.Set<String> refused = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger();

  RecordingWebhook(Duration delay) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newFixedThreadPool(16));
    server.createContext("/", exchange -> {
      try (exchange) {
        if (refused.contains(exchange.getRequestURI().getPath())) {
          exchange.getRequestBody().readAllBytes();
          refusals.incrementAndGet();
          exchange.sendResponseHeaders(503, -1);
          return;
        }
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        synchronized (this) {
          received.add(body);
        }
        if (!delay.isZero()) {
          LockSupport.parkNanos(delay.toNanos());
        }
        exchange.sendResponseHeaders(204, -1);
        synchronized (this) {
          confirmed.add(body);
          String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
          if (traceparent != null) {
            traceparents.add(traceparent);
          }
        }
      }
    });
    server.start();
  }

  /**
   * @return the end of a relay configuration file that sends destination {@code orders} to {@code /orders} here,
   *     one line per element (transports and destinations sections, then an empty line)
   */
  List<String> ordersConfig() {
    return List.of("transports:", "  webhooks:", "    type: http", "    endpoint.orders: " + url("/orders"),
        "destinations:", "  orders: webhooks", "");
  }

  /** @param path a path that answers 503 from now on */
  void refuse(String path) {
    refused.add(path);
  }

  /** @param path a refused path that answers 204 again */
  void accept(String path) {
    refused.remove(path);
  }

  /** @return requests answered 503 */
  int refusals() {
    return refusals.get();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  synchronized List<String> received() {
    return new ArrayList<>(received);
  }

  synchronized List<String> confirmed() {
    return new ArrayList<>(confirmed);
  }

  synchronized List<String> traceparents() {
    return new ArrayList<>(traceparents);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
