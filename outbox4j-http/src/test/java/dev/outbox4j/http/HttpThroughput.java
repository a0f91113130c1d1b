package dev.outbox4j.http;

import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.testkit.ConsumerLedger;

/**
 * Measures (never asserts) end-to-end throughput: a backlog of 20,000 messages in a PostgreSQL outbox (1,000 ordering keys), drained by one relay
 * through the HTTP transport into a real local webhook receiver. Run with
 * {@code mvn -q -pl outbox4j-http -am verify -Pthroughput -DskipTests}.
 */
public final class HttpThroughput {
  private HttpThroughput() {}

  /** @param args ignored */
  public static void main(String[] args) throws Exception {
    int count = 20_000;
    ConsumerLedger ledger = new ConsumerLedger();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("bench_http_");
        WebhookServer server = new WebhookServer()) {
      server.onRequest(r -> ledger.record(r.header(HttpTransport.MESSAGE_ID_HEADER), r.body()));
      outbox.write(ConsumerLedger.backlog("hook", count, 1_000));
      try (HttpTransport transport = HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
          .withSigningSecret(StandardWebhooksTest.SECRET).build();
          Relay relay = Relay.builder(outbox.store(), transport).withBatchSize(500).withMaxInFlight(64).build()) {
        double seconds = outbox.timeToDeliver(relay, ledger, count).toNanos() / 1e9;
        System.out.printf("HTTP: %d messages delivered end to end in %.2f s = %.0f messages/s (%d arrivals)%n",
            ledger.uniqueCount(), seconds, ledger.uniqueCount() / seconds, ledger.arrivalCount());
      }
    }
  }
}
