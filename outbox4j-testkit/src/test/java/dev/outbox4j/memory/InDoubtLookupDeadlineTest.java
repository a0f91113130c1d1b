package dev.outbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.testkit.AtomicTestTransport;
import dev.outbox4j.testkit.SettableClock;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The relay's question about entries in doubt has a deadline, a quarter of the lease: past it the relay cancels the
 * question, so that the transport stops the look-up and frees what it holds, and leaves the entries claimed.
 */
class InDoubtLookupDeadlineTest {
  private static final Duration LEASE = Duration.ofSeconds(2);

  @Test
  void a_question_about_entries_in_doubt_unanswered_within_a_quarter_of_the_lease_is_cancelled() {
    SettableClock clock = SettableClock.atFixedStart();
    InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();
    AtomicTestTransport transport = new AtomicTestTransport(Set.of("ledger"));
    Relay relay = Relay.builder(store, transport).withClock(clock).withLease(LEASE)
        .withDeliveryTimeout(Duration.ofSeconds(1)).build();
    store.enqueue(Message.builder().withDestination("ledger").withOrderingKey("a").withPayload("a0").build());
    transport.thenBatch(true, batch -> BatchOutcome.inDoubt("commit timed out"));
    relay.flush();
    clock.advance(LEASE.plusSeconds(1));
    CompletableFuture<Set<UUID>> question = transport.thenLookupHangs();

    RelayResult pass = relay.flush();

    assertThat(transport.lookups()).hasSize(1);
    assertThat(question).as("the question the relay stopped waiting for").isCancelled();
    assertThat(pass.delivered()).isZero();
    assertThat(transport.landed()).as("not sent again while its fate is unknown").hasSize(1);
  }
}
