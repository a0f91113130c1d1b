package dev.outbox4j.relay.runtime;

import com.sun.net.httpserver.HttpServer;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.testkit.ConsumerLedger;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Measures (never asserts) what a refusing destination costs a healthy one (SPEC §4, "a fault stays in its lane"): a
 * healthy webhook's backlog is drained by one relay through the HTTP transport alone, then again with an older backlog
 * of a second endpoint on the same transport that answers 503 to everything, in front of it. Each round uses fresh
 * PostgreSQL outbox tables; alone and beside alternate, after a warm-up round of each that is not counted. Prints each
 * round's healthy rates and the ratio (beside / alone). Run with
 * {@code mvn -q -pl outbox4j-relay -am verify -Pfault-isolation -DskipTests}.
 */
public final class FaultIsolationThroughput {
  private static final int HEALTHY = 10_000;
  private static final int HEALTHY_KEYS = 500;
  private static final int REFUSED = 2_500;
  private static final int REFUSED_KEYS = 125;
  private static final int ROUNDS = 3;

  private FaultIsolationThroughput() {}

  /** @param args ignored */
  public static void main(String[] args) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
    ExecutorService threads = Executors.newFixedThreadPool(32);
    ConsumerLedger[] ledger = {new ConsumerLedger()};
    server.setExecutor(threads);
    server.createContext("/", exchange -> {
      try (exchange) {
        byte[] body = exchange.getRequestBody().readAllBytes();
        if (exchange.getRequestURI().getPath().equals("/refusing")) {
          exchange.sendResponseHeaders(503, -1);
          return;
        }
        ledger[0].record(exchange.getRequestHeaders().getFirst(HttpTransport.MESSAGE_ID_HEADER), body);
        exchange.sendResponseHeaders(204, -1);
      }
    });
    server.start();
    String base = "http://127.0.0.1:" + server.getAddress().getPort();
    List<Double> ratios = new ArrayList<>();
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("healthy", URI.create(base + "/healthy"))
        .withEndpoint("refusing", URI.create(base + "/refusing")).build()) {
      for (int round = 0; round <= ROUNDS; round++) {
        ledger[0] = new ConsumerLedger();
        double alone = rate(transport, ledger[0], false);
        ledger[0] = new ConsumerLedger();
        double beside = rate(transport, ledger[0], true);
        String label = round == 0 ? "warm-up" : "round " + round;
        System.out.printf(Locale.ROOT, "%-8s healthy %d: alone %.0f msg/s, beside %d refused (503) %.0f msg/s,"
            + " ratio %.2f%n", label, HEALTHY, alone, REFUSED, beside, beside / alone);
        if (round > 0) {
          ratios.add(beside / alone);
        }
      }
    } finally {
      server.stop(0);
      threads.shutdownNow();
    }
    ratios.sort(null);
    System.out.printf(Locale.ROOT, "fault isolation (HTTP, 503 beside healthy): median ratio %.2f, min %.2f, max %.2f"
        + " over %d rounds%n", ratios.get(ratios.size() / 2), ratios.get(0), ratios.get(ratios.size() - 1), ROUNDS);
  }

  /** @return the healthy destination's rate, messages per second, from relay start to its last confirmation */
  private static double rate(HttpTransport transport, ConsumerLedger ledger, boolean refusedInFront)
      throws InterruptedException {
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("bench_iso_")) {
      if (refusedInFront) {
        outbox.write(backlog("refusing", "r", REFUSED, REFUSED_KEYS));
      }
      outbox.write(backlog("healthy", "h", HEALTHY, HEALTHY_KEYS));
      try (Relay relay = Relay.builder(outbox.store(), transport).withBatchSize(500).withMaxInFlight(64).build()) {
        long start = System.nanoTime();
        relay.start();
        long deadline = start + Duration.ofMinutes(5).toNanos();
        while (ledger.uniqueCount() < HEALTHY && System.nanoTime() < deadline) {
          Thread.sleep(2); // a measurement's poll, not test logic
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (refusedInFront && relay.pausedDestinations().isEmpty()) {
          System.out.println("note: the refusing destination was not paused at the end of the round");
        }
        return ledger.uniqueCount() / seconds;
      }
    }
  }

  private static List<Message> backlog(String destination, String keyPrefix, int count, int keys) {
    List<Message> messages = new ArrayList<>(count);
    int[] next = new int[keys];
    for (int i = 0; i < count; i++) {
      int key = i % keys;
      String orderingKey = keyPrefix + key;
      messages.add(Message.builder().withDestination(destination).withOrderingKey(orderingKey)
          .withPayload(orderingKey + ":" + next[key]++).withContentType("text/plain").build());
    }
    return messages;
  }
}
