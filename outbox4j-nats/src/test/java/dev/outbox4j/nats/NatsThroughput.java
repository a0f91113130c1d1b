package dev.outbox4j.nats;

import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.testkit.ConsumerLedger;

/**
 * Measures (never asserts) end-to-end throughput: a backlog of 20,000 messages in a PostgreSQL outbox (1,000 ordering keys), drained by one relay
 * through the NATS transport into a JetStream stream and a real consumer. Run with
 * {@code mvn -q -pl outbox4j-nats -am verify -Pthroughput -DskipTests}.
 */
public final class NatsThroughput {
  private NatsThroughput() {}

  /** @param args ignored */
  public static void main(String[] args) throws Exception {
    int count = 20_000;
    ConsumerLedger ledger = new ConsumerLedger();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("bench_nats_");
        NatsTestStream stream = new NatsTestStream()) {
      stream.startConsuming(message ->
          ledger.record(message.getHeaders().getFirst(NatsTransport.MESSAGE_ID_HEADER), message.getData()));
      outbox.write(ConsumerLedger.backlog(stream.subject(), count, 1_000));
      try (NatsTransport transport = NatsTransport.builder().withServer(NatsTestStream.SERVER).build();
          Relay relay = Relay.builder(outbox.store(), transport).withBatchSize(1_000).withMaxInFlight(1_000).build()) {
        double seconds = outbox.timeToDeliver(relay, ledger, count).toNanos() / 1e9;
        System.out.printf("NATS JetStream: %d messages delivered end to end in %.2f s = %.0f messages/s"
            + " (%d arrivals)%n", ledger.uniqueCount(), seconds, ledger.uniqueCount() / seconds, ledger.arrivalCount());
      }
    }
  }
}
