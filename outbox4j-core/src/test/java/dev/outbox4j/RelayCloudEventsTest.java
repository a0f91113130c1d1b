package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the relay does with {@link RelayBuilder#withCloudEvents} around transports that do and do not write them. */
class RelayCloudEventsTest {
  private final InMemoryOutboxStore store = InMemoryOutboxStore.create();
  private final List<Message> plain = new ArrayList<>();

  @Test
  void a_transport_that_does_not_write_cloudevents_quarantines_the_mapped_destination_only_with_a_clear_reason() {
    Message mapped = store.enqueue(Message.builder().withDestination("orders").withPayload("{}").build()).message();
    Message other = store.enqueue(Message.builder().withDestination("audit").withPayload("{}").build()).message();

    try (Relay relay = Relay.builder(store, InProcessTransport.consuming(plain::add))
        .withCloudEvents("orders", CloudEventsMapping.binary("/shop", "com.example.order")).build()) {
      relay.flush();
    }

    OutboxEntry refused = store.find(mapped.id()).orElseThrow();
    assertThat(refused.quarantineKind()).isEqualTo(QuarantineKind.PERMANENT_FAILURE);
    assertThat(refused.quarantineReason()).contains("does not write CloudEvents", "orders");
    assertThat(plain).extracting(Message::id).containsExactly(other.id());
  }

  @Test
  void a_blank_destination_is_refused_by_name() {
    RelayBuilder builder = Relay.builder(store, InProcessTransport.consuming(plain::add));
    assertThatThrownBy(() -> builder.withCloudEvents(" ", CloudEventsMapping.binary("/s", "t")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("destination");
  }
}
