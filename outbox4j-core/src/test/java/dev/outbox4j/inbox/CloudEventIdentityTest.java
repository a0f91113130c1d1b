package dev.outbox4j.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.memory.InMemoryInbox;
import dev.outbox4j.memory.InMemoryInboxTransaction;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CloudEventIdentityTest {
  private final InMemoryInbox inbox = InMemoryInbox.create();

  private Receipt receive(UUID id) {
    try (InMemoryInboxTransaction transaction = inbox.begin()) {
      Receipt receipt = inbox.receive(transaction, "billing", id);
      transaction.commit();
      return receipt;
    }
  }

  @Test
  void the_same_source_and_id_is_a_duplicate_and_another_source_with_that_id_is_not() {
    assertThat(receive(CloudEventIdentity.of("/shop/orders", "A-234-1234"))).isEqualTo(Receipt.FIRST);
    assertThat(receive(CloudEventIdentity.of("/shop/orders", "A-234-1234"))).isEqualTo(Receipt.DUPLICATE);
    assertThat(receive(CloudEventIdentity.of("/shop/refunds", "A-234-1234"))).isEqualTo(Receipt.FIRST);
    assertThat(CloudEventIdentity.of("ab", "c")).isNotEqualTo(CloudEventIdentity.of("a", "bc"));
  }

  @Test
  void an_id_alone_that_is_a_uuid_is_the_message_id_itself() {
    UUID messageId = UUID.randomUUID();
    assertThat(CloudEventIdentity.of(messageId.toString())).isEqualTo(messageId);
    assertThat(receive(messageId)).isEqualTo(Receipt.FIRST);
    assertThat(receive(CloudEventIdentity.of(messageId.toString()))).isEqualTo(Receipt.DUPLICATE);
    assertThat(CloudEventIdentity.of("order-7")).isEqualTo(CloudEventIdentity.of("order-7"))
        .isNotEqualTo(CloudEventIdentity.of("order-8"));
  }

  @Test
  void a_blank_attribute_is_refused_by_name() {
    assertThatThrownBy(() -> CloudEventIdentity.of(" ", "1")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source");
    assertThatThrownBy(() -> CloudEventIdentity.of("/s", "")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id");
  }
}
