package dev.outbox4j.rabbitmq;

import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.testkit.ConsumerLedger;

/**
 * Measures (never asserts) end-to-end throughput: a backlog of 20,000 messages in a PostgreSQL outbox (1,000 ordering keys), drained by one relay
 * through the RabbitMQ transport to the real broker and a real consumer. Run with
 * {@code mvn -q -pl outbox4j-rabbitmq -am verify -Pthroughput -DskipTests}.
 */
public final class RabbitMqThroughput {
  private RabbitMqThroughput() {}

  /** @param args ignored */
  public static void main(String[] args) throws Exception {
    int count = 20_000;
    ConsumerLedger ledger = new ConsumerLedger();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("bench_rabbitmq_");
        RabbitMqTestBroker broker = new RabbitMqTestBroker()) {
      broker.startConsuming((tag, delivery) ->
          ledger.record(delivery.getProperties().getMessageId(), delivery.getBody()));
      outbox.write(ConsumerLedger.backlog(broker.destination(), count, 1_000));
      try (RabbitMqTransport transport = RabbitMqTransport.builder().withPort(RabbitMqTestBroker.PORT).build();
          Relay relay = Relay.builder(outbox.store(), transport).withBatchSize(1_000).withMaxInFlight(1_000).build()) {
        double seconds = outbox.timeToDeliver(relay, ledger, count).toNanos() / 1e9;
        System.out.printf("RabbitMQ: %d messages delivered end to end in %.2f s = %.0f messages/s (%d arrivals)%n",
            ledger.uniqueCount(), seconds, ledger.uniqueCount() / seconds, ledger.arrivalCount());
      }
    }
  }
}
