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
}
