package dev.outbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class InMemoryOutboxStoreTest extends OutboxStoreContract {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return InMemoryOutboxStore.builder().withClock(clock).withRetention(retention).build();
  }

  /** Holds typed values only: every entry went through {@link Message}'s checks, so no row can be unreadable. */
  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    return false;
  }

  @Test
  void attempts_of_and_last_error_of_an_unknown_id_are_zero_and_empty() {
    InMemoryOutboxStore memory = (InMemoryOutboxStore) store();

    assertThat(memory.attemptsOf(UUID.randomUUID())).isZero();
    assertThat(memory.lastErrorOf(UUID.randomUUID())).isEmpty();
  }

  @Test
  void attempts_of_and_last_error_of_follow_a_known_entry_until_it_is_gone() {
    InMemoryOutboxStore memory = (InMemoryOutboxStore) store();
    OutboxEntry entry = memory.enqueue(Message.builder().withDestination("d").build());
    assertThat(memory.attemptsOf(entry.id())).isZero();
    assertThat(memory.lastErrorOf(entry.id())).isEmpty();

    OutboxEntry failed = memory.markFailed(entry, "503", clock.instant());
    assertThat(memory.attemptsOf(entry.id())).isEqualTo(1);
    assertThat(memory.lastErrorOf(entry.id())).contains("503");
    assertThat(memory.pendingCount()).isEqualTo(1);

    memory.markDelivered(failed, null);
    assertThat(memory.attemptsOf(entry.id())).isZero();
    assertThat(memory.lastErrorOf(entry.id())).isEmpty();
    assertThat(memory.pendingCount()).isZero();
  }
}
