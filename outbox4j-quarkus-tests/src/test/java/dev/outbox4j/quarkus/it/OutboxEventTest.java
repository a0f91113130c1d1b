package dev.outbox4j.quarkus.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.quarkus.OutboxTransactionRequiredException;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CDI events of an {@code @OutboxEvent} type ({@link OrderShipped}), fired with {@code Event<T>.fire(...)}: written to
 * the outbox in the firing transaction, mapped by the annotation (destination from a property expression, ordering key
 * from a record component, JSON by the application's {@code ObjectMapper}) and published by the relay to RabbitMQ.
 */
@QuarkusTest
@TestProfile(OwnApplication.class)
@WithTestResource(PostgresAndRabbitMq.class)
class OutboxEventTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @RegisterExtension static final TestQueues queues = new TestQueues();
  private static TestQueues.Queue shipped;

  @Inject Shipments shipments;
  @Inject Orders orders;
  @Inject DeliveredEntries delivered;
  @Inject Event<String> unmarked;

  @BeforeAll
  static void declare() {
    shipped = queues.declared(PostgresAndRabbitMq.EVENTS_QUEUE);
  }

  @Test
  void an_event_fired_in_a_transaction_is_written_as_the_annotation_maps_it_and_published_after_commit() {
    shipments.ship("ship-1", 2);

    String json = "{\"orderId\":\"ship-1\",\"parcels\":2}";
    await().atMost(WAIT).until(() -> shipped.received().contains(json));
    assertThat(orders.exists("shipment-ship-1")).isTrue();
    Message written = delivered.withPayload(json).map(OutboxEntry::message).orElseThrow();
    assertThat(written.destination()).isEqualTo("/" + PostgresAndRabbitMq.EVENTS_QUEUE);
    assertThat(written.orderingKey()).contains("ship-1");
    assertThat(written.contentType()).isEqualTo("application/json");
  }

  @Test
  void an_event_fired_in_a_rolled_back_transaction_sends_nothing() {
    assertThatThrownBy(() -> shipments.shipThenFail("ship-rolled-back", 1))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("refused after firing");
    shipments.ship("ship-after", 1);

    await().atMost(WAIT).until(() -> shipped.received().stream().anyMatch(json -> json.contains("ship-after")));
    assertThat(shipped.received()).noneMatch(json -> json.contains("ship-rolled-back"));
    assertThat(orders.exists("shipment-ship-rolled-back")).isFalse();
  }

  @Test
  void an_event_fired_outside_a_transaction_is_refused_with_the_reason() {
    assertThatThrownBy(() -> shipments.fireWithoutTransaction("ship-outside"))
        .isInstanceOf(OutboxTransactionRequiredException.class)
        .hasMessage("no JTA transaction on the outbox's datasource is in progress (none is active); nothing was "
            + "written. Write inside a @Transactional method, or set "
            + "outbox4j.write.without-transaction=own-transaction");
  }

  @Test
  void events_of_unmarked_types_are_left_alone() {
    // outside any transaction: an event the writer took for an outbox event would be refused
    assertThatCode(() -> unmarked.fire("not an order")).doesNotThrowAnyException();
  }
}
