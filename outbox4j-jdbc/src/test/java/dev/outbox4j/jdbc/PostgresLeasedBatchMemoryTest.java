package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a leased-batch store remembers of its batches ({@link LeasedBatchClaims}) is bounded by what it claimed within
 * one lease: batches never completed (a relay whose completions failed, entries in doubt or past their cutoff) are
 * forgotten once their lease has passed, and their late completions are still fenced.
 */
class PostgresLeasedBatchMemoryTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void batches_never_completed_are_forgotten_once_their_lease_has_passed() {
    SettableClock clock = SettableClock.atFixedStart();
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore("pgbatch_memory_", clock, Retention.deleteOnDelivery());
    for (int i = 0; i < 4; i++) {
      store.enqueue(Message.builder().withDestination("d").withOrderingKey("k" + i).build());
    }
    List<Claim> abandoned = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      abandoned.addAll(store.claim(1, clock.instant(), LEASE)); // three batches, none completed
    }
    List<Claim> half = store.claim(1, clock.instant(), LEASE);
    assertThat(abandoned).hasSize(3);
    assertThat(store.rememberedBatches()).isEqualTo(4);

    clock.advance(LEASE.plusSeconds(1));
    store.enqueue(Message.builder().withDestination("d").withOrderingKey("later").build());
    List<Claim> next = store.claim(10, clock.instant(), LEASE);

    assertThat(next).hasSize(5).as("the expired batches' entries, taken over, and the new one");
    assertThat(store.rememberedBatches()).as("only the batch claimed now").isEqualTo(1);
    assertThat(store.markDelivered(abandoned, clock.instant())).as("late completions of forgotten batches")
        .hasSize(3);
    assertThat(store.markDelivered(half, clock.instant())).hasSize(1);
    assertThat(store.markDelivered(next, clock.instant())).isEmpty();
    assertThat(store.rememberedBatches()).isZero();
    assertThat(store.stats(clock.instant()).pending()).isZero();
  }
}
