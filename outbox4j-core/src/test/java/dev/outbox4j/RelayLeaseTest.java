package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class RelayLeaseTest {

  @Test
  void entries_that_cannot_be_sent_inside_their_lease_are_left_for_the_lease_to_hand_on() {
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(store.enqueue(Message.builder().withDestination("d").build()).id());
    }
    List<UUID> sent = new CopyOnWriteArrayList<>();
    Transport neverConfirms = message -> {
      sent.add(message.id());
      return new CompletableFuture<DeliveryOutcome>();
    };
    Relay relay = Relay.builder(store, neverConfirms)
        .withMaxInFlight(1)
        .withLease(Duration.ofSeconds(2))
        .withDeliveryTimeout(Duration.ofSeconds(1))
        .build();

    RelayResult result = relay.flush();

    // The first send times out after 1 s; the second may only wait until 90% of the lease (1.8 s); the third would
    // start after that, so it is never sent and never counted as an attempt. Two different entries timing out with
    // nothing confirmed is an outage: they are handed back uncharged.
    assertThat(result).isEqualTo(new RelayResult(3, 2, 0, 0, 2, 0, 0));
    assertThat(sent).containsExactly(ids.get(0), ids.get(1));
    OutboxEntry unsent = store.find(ids.get(2)).orElseThrow();
    assertThat(unsent.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(unsent.attempts()).isZero();
    assertThat(store.find(ids.get(0)).orElseThrow().attempts()).isZero();
  }

  @Test
  void a_send_starts_only_while_any_copy_of_it_lands_inside_the_lease() {
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    for (int i = 0; i < 2; i++) {
      store.enqueue(Message.builder().withDestination("d").build());
    }
    List<UUID> sent = new CopyOnWriteArrayList<>();
    Transport lateLanding = new Transport() {
      @Override
      public java.util.concurrent.CompletionStage<DeliveryOutcome> deliver(Message message) {
        sent.add(message.id());
        return new CompletableFuture<>();
      }

      @Override
      public Duration maxAnswerTime() {
        return Duration.ofMillis(600);
      }
    };
    Relay relay = Relay.builder(store, lateLanding)
        .withMaxInFlight(1)
        .withLease(Duration.ofSeconds(1))
        .withDeliveryTimeout(Duration.ofMillis(600))
        .build();

    RelayResult result = relay.flush();

    // The second send could start only at 0.6 s, when its copy might land until 1.2 s, after the 1 s lease: if this
    // relay died then, another could claim the entry while that copy is still on its way. So it is not sent.
    assertThat(result.claimed()).isEqualTo(2);
    assertThat(result.attempted()).isEqualTo(1);
    assertThat(sent).hasSize(1);
  }
}
