package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.testkit.ConsumerLedger;
import dev.outbox4j.testkit.FailedAttempts;
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
  private final FailedAttempts failures = new FailedAttempts();

  @AfterEach
  void deleteQueue() {
    outbox.close();
    broker.close();
  }

  private Relay relay(RabbitMqTransport transport) {
    return outbox.relayWithFastRetries(transport).onEvent(failures).build();
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
  void a_connection_outage_mid_run_loses_nothing_and_quarantines_nothing() {
    consume();
    List<Message> sent = ConsumerLedger.backlog(broker.destination(), 5_000, 50);
    outbox.write(sent);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", RabbitMqTestBroker.PORT);
        RabbitMqTransport transport = RabbitMqTransport.builder().withPort(proxy.port())
            .withRecoveryInterval(Duration.ofMillis(250)).withConnectionTimeout(Duration.ofSeconds(2)).build();
        Relay relay = relay(transport)) {
      relay.start();
      await().atMost(Duration.ofSeconds(180)).until(() -> ledger.uniqueCount() >= 1_000);

      proxy.cut();
      await().atMost(Duration.ofSeconds(180)).until(() -> failures.get() >= 200);
      proxy.restore();

      await().atMost(Duration.ofSeconds(180)).until(() -> ledger.uniqueCount() >= 5_000 && outbox.pending() == 0);
    }
    ledger.assertReceivedExactly(sent);
    assertThat(failures.get()).as("deliveries failed during the outage and were retried").isGreaterThanOrEqualTo(200);
    assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
  }
}
