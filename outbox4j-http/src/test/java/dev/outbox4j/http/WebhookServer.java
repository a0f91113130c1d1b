package dev.outbox4j.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A real webhook receiver on 127.0.0.1 for tests: records every request, answers per path. {@code /ok} answers 200,
 * {@code /status/<code>} answers that code, {@code /status/<code>/retry-after/<value>} adds a Retry-After header
 * (URL-encoded), {@code /slow} answers only after {@link #close()} (or 20 s).
 */
final class WebhookServer implements AutoCloseable {
  /** One request as received: lower-case header names, first values. */
  record Request(String path, Map<String, String> headers, byte[] body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newFixedThreadPool(16);
  private final BlockingQueue<Request> received = new LinkedBlockingQueue<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile Consumer<Request> onRequest = request -> {};

  WebhookServer() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  BlockingQueue<Request> received() {
    return received;
  }

  void onRequest(Consumer<Request> callback) {
    this.onRequest = callback;
  }

  Request next(Duration timeout) {
    try {
      Request request = received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (request == null) {
        throw new AssertionError("no request within " + timeout);
      }
      return request;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    Map<String, String> headers = new LinkedHashMap<>();
    exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
    String path = exchange.getRequestURI().getPath();
    Request request = new Request(path, headers, body);
    received.add(request);
    onRequest.accept(request);
    int status = 200;
    String[] parts = path.split("/");
    if (path.startsWith("/status/")) {
      status = Integer.parseInt(parts[2]);
      if (parts.length > 4 && parts[3].equals("retry-after")) {
        exchange.getResponseHeaders().add("Retry-After",
            java.net.URLDecoder.decode(parts[4], java.nio.charset.StandardCharsets.UTF_8));
      }
    } else if (path.equals("/slow")) {
      try {
        released.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  @Override
  public void close() {
    released.countDown();
    server.stop(0);
    executor.shutdownNow();
  }
}
