package dev.outbox4j.bench;

import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.PlainHttpReceiver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A webhook receiver for the broker end-to-end scenarios (the testkit's {@link PlainHttpReceiver}, built as Python's
 * {@code ThreadingHTTPServer} is, with its backlog of {@value #BACKLOG}: keeping connections alive, or closing each
 * after its answer), outbox4j's HTTP transport pointed at it with its defaults, and a hand-written
 * baseline: the JDK {@link HttpClient} posting the rows, at most {@link HttpTransport#DEFAULT_MAX_CONCURRENT_REQUESTS}
 * at a time (the transport's bound), every {@code 200} awaited, a request that failed sent again (so every row is
 * confirmed, as the relay's are), the rows of one key one after another in {@code seq} order. Both send the payload,
 * the content type, {@code Outbox-Message-Id} and, for keyed rows, {@code Outbox-Ordering-Key}; no signature.
 *
 * <p>With {@code -Doutbox4j.bench.webhook.keepalive=<url>} or {@code -Doutbox4j.bench.webhook.close=<url>} the rows of
 * that kind post to a receiver running outside the bench instead (for example Python's {@code ThreadingHTTPServer},
 * {@code outbox4j-bench/scripts/webhook-receiver.py}); the rows then count what the relay and the baseline confirmed.
 */
final class HttpBenchBroker implements BenchBroker {
  /** Tries of one row: one more than the connections the client holds, so the last goes out on a new one. */
  private static final int ATTEMPTS = HttpTransport.DEFAULT_MAX_CONCURRENT_REQUESTS + 1;
  /** Python's {@code socketserver.TCPServer.request_queue_size}. */
  static final int BACKLOG = 5;

  private final PlainHttpReceiver receiver;
  private final URI uri;
  private final boolean external;

  /** @param keepAlive whether the receiver keeps connections open (HTTP/1.1) or closes each (HTTP/1.0) */
  HttpBenchBroker(boolean keepAlive) throws Exception {
    this.receiver = new PlainHttpReceiver(keepAlive, BACKLOG, Duration.ZERO, false, HttpTransport.MESSAGE_ID_HEADER);
    String elsewhere = System.getProperty("outbox4j.bench.webhook." + (keepAlive ? "keepalive" : "close"));
    this.external = elsewhere != null && !elsewhere.isBlank();
    this.uri = external ? URI.create(elsewhere) : receiver.uri();
  }

  @Override
  public String name() {
    return receiver.keepAlive() ? "http-keepalive" : "http-close";
  }

  @Override
  public String describe() {
    String kind = receiver.keepAlive() ? "HTTP/1.1 keep-alive" : "HTTP/1.0, closes each connection";
    return external ? "external webhook receiver at " + uri + " (" + kind + "), 200 awaited"
        : "webhook receiver (thread per connection, backlog " + BACKLOG + ", " + kind
            + "), 200 awaited";
  }

  @Override
  public Transport transport() {
    return HttpTransport.builder().withEndpoint(Payloads.DESTINATION, uri).build();
  }

  @Override
  public Publisher publisher() {
    HttpClient client = HttpClient.newBuilder().connectTimeout(HttpTransport.DEFAULT_CONNECT_TIMEOUT)
        .followRedirects(HttpClient.Redirect.NEVER).build();
    return new Publisher() {
      @Override
      public void publishAll(List<Row> rows) throws Exception {
        // one chain per key (unkeyed rows each their own), the chains run at most the transport's bound at a time
        Map<Object, ArrayDeque<Row>> chains = new LinkedHashMap<>();
        for (Row row : rows) {
          chains.computeIfAbsent(row.orderingKey() == null ? new Object() : row.orderingKey(),
              key -> new ArrayDeque<>()).add(row);
        }
        Semaphore slots = new Semaphore(HttpTransport.DEFAULT_MAX_CONCURRENT_REQUESTS);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> ends = new ArrayList<>(chains.size());
        for (ArrayDeque<Row> chain : chains.values()) {
          slots.acquire();
          CompletableFuture<Void> end = new CompletableFuture<>();
          ends.add(end);
          sendChain(chain, slots, end, 1);
        }
        for (CompletableFuture<Void> end : ends) {
          try {
            end.get(60, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            failures.add(e.getCause());
          }
        }
        if (!failures.isEmpty()) {
          throw new IllegalStateException(failures.size() + " rows unconfirmed, first: " + failures.peek());
        }
      }

      /** Posts the chain's rows in order, each until answered 2xx ({@value #ATTEMPTS} tries), then frees a slot. */
      private void sendChain(ArrayDeque<Row> chain, Semaphore slots, CompletableFuture<Void> end, int attempt) {
        Row row = chain.peek();
        if (row == null) {
          slots.release();
          end.complete(null);
          return;
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(HttpTransport.DEFAULT_REQUEST_TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofByteArray(row.payload()))
            .header("Content-Type", row.contentType())
            .header(HttpTransport.MESSAGE_ID_HEADER, row.id());
        if (row.orderingKey() != null) {
          request.header(HttpTransport.ORDERING_KEY_HEADER, row.orderingKey());
        }
        client.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
          boolean confirmed = error == null && response.statusCode() / 100 == 2;
          if (confirmed) {
            chain.poll();
            sendChain(chain, slots, end, 1);
          } else if (attempt < ATTEMPTS) {
            sendChain(chain, slots, end, attempt + 1);
          } else {
            slots.release();
            end.completeExceptionally(error != null ? error
                : new IllegalStateException("HTTP " + response.statusCode() + " for " + row.id()));
          }
        });
      }

      @Override
      public void close() {
        // the JDK 17 client has no close; its threads idle out
      }
    };
  }

  @Override
  public void purge() {
    receiver.reset();
  }

  @Override
  public long stored() {
    return receiver.distinct();
  }

  @Override
  public String toString() {
    return name() + " (" + receiver.requests() + " requests, " + receiver.connections() + " connections)";
  }

  @Override
  public void close() {
    receiver.close();
  }
}
