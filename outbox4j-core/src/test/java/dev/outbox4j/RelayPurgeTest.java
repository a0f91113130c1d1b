package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RelayPurgeTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final Transport CONFIRMS = message -> CompletableFuture.completedFuture(DeliveryOutcome.delivered());

  @Test
  void a_purge_that_falls_behind_stays_due_until_it_has_caught_up() throws InterruptedException {
    InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(Clock.fixed(START, ZoneOffset.UTC))
        .withRetention(Retention.keepFor(Duration.ofMinutes(5))).build();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 25_000; i++) {
      ids.add(store.enqueue(Message.builder().withDestination("d").build()).id());
    }
    Relay delivering = Relay.builder(store, CONFIRMS).withClock(Clock.fixed(START, ZoneOffset.UTC)).build();
    assertThat(delivering.drain(1_000).delivered()).isEqualTo(25_000);
    Instant later = START.plus(Duration.ofMinutes(6));
    UUID newest = store.enqueue(Message.builder().withDestination("d").build()).id();

    // More is past its retention than one purge's rounds remove (10 × 1,000): the purge must not wait for its next
    // interval (an hour here) to go on, or a relay that delivers faster than that never catches up.
    Relay purging = Relay.builder(store, CONFIRMS).withClock(Clock.fixed(later, ZoneOffset.UTC))
        .withPurgeInterval(Duration.ofHours(1)).build();
    purging.start();
    try {
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (System.nanoTime() < deadline && ids.stream().anyMatch(id -> store.find(id).isPresent())) {
        Thread.sleep(20);
      }
    } finally {
      purging.close();
    }
    assertThat(ids.stream().filter(id -> store.find(id).isPresent()).count()).isZero();
    assertThat(store.find(newest).orElseThrow().status()).isEqualTo(EntryStatus.DELIVERED); // kept: delivered later
  }
}
