package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.testkit.ConsumerLedger;
import dev.outbox4j.testkit.OutageWatch;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PostgreSQL outbox → relay → RabbitMQ transport → the real broker → a real consumer. */
class RabbitMqRelayEndToEndTest {
  private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
  private final ConsumerLedger ledger = new ConsumerLedger();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("e2e_rabbitmq_");

  @AfterEach
  void deleteQueue() {
    outbox.close();
    broker.close();
  }

  private Relay relay(RabbitMqTransport transport) {
    return outbox.relayWithFastRetries(transport).build();
  }

  private void consume() {
    broker.startConsuming((tag, delivery) ->
        ledger.record(delivery.getProperties().getMessageId(), delivery.getBody()));
  }

  @Test
  void five_thousand_messages_arrive_once_each_in_key_order() {
    consume();
    List<Message> sent = ConsumerLedger.backlog(broker.destination(), 5_000, 50);
    outbox.write(sent);
    try (RabbitMqTransport transport = RabbitMqTransport.builder().withPort(RabbitMqTestBroker.PORT).build();
        Relay relay = relay(transport)) {
      relay.start();

      await().atMost(Duration.ofSeconds(180)).until(() -> ledger.uniqueCount() >= 5_000 && outbox.pending() == 0);
    }
    ledger.assertReceivedExactly(sent);
    assertThat(ledger.arrivalCount()).as("no duplicates without an outage").isEqualTo(5_000);
    assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
  }

  @Test
  void a_broker_away_longer_than_the_whole_retry_budget_quarantines_nothing_and_everything_arrives_in_key_order() {
    consume();
    List<Message> sent = ConsumerLedger.backlog(broker.destination(), 5_000, 50);
    outbox.write(sent);
    OutageWatch watch = new OutageWatch();
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", RabbitMqTestBroker.PORT);
        RabbitMqTransport transport = RabbitMqTransport.builder().withPort(proxy.port())
            .withRecoveryInterval(Duration.ofMillis(250)).withConnectionTimeout(Duration.ofSeconds(2)).build();
        Relay relay = outbox.relayWithFastRetries(transport).withRetryPolicy(OutageWatch.shortRetryBudget())
            .onEvent(watch).build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
          .until(() -> ledger.uniqueCount() >= 500);

      watch.holdOutage(proxy, OutageWatch.RETRY_BUDGET.multipliedBy(2));

      await().atMost(Duration.ofSeconds(60)).until(() -> ledger.uniqueCount() >= 5_000 && outbox.pending() == 0);
    }
    ledger.assertReceivedExactly(sent);
    assertThat(watch.postponed()).as("the outage was met and charged to nobody").isPositive();
    assertThat(watch.quarantined()).isZero();
    assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
  }
}
