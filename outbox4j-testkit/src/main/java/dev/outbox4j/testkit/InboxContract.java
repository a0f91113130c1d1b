package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.inbox.Inbox;
import dev.outbox4j.inbox.Receipt;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Inbox} passes (SPEC §6): a second receive of an id is a duplicate, concurrent receives of
 * one id in separate transactions produce exactly one first, a rolled-back transaction records nothing, consumer names
 * are independent, and retention purges only what is old enough, in bounded batches.
 *
 * <p>Subclass it and implement the four abstract methods; every {@code final} test runs. Each transaction the suite
 * opens must be independent of the others (for a database: its own connection), so races are real.
 *
 * @param <T> the inbox's transaction handle
 */
public abstract class InboxContract<T> {
  /** How long a test waits for a racing or blocked transaction. */
  protected static final Duration WAIT = Duration.ofSeconds(60);

  private final SettableClock clock = SettableClock.atFixedStart();
  private @Nullable Inbox<T> inbox;

  /**
   * @param clock the clock the inbox must take receive times from
   * @return an inbox over empty storage (no records from earlier tests)
   */
  protected abstract Inbox<T> newInbox(Clock clock);

  /** @return a new, open transaction, independent of every other open one */
  protected abstract T begin();

  /** @param transaction commits and ends the transaction (releasing its connection) */
  protected abstract void commit(T transaction);

  /** @param transaction rolls back and ends the transaction (releasing its connection) */
  protected abstract void rollback(T transaction);

  @BeforeEach
  final void createInbox() {
    inbox = newInbox(clock);
  }

  /** @return the inbox under test */
  protected final Inbox<T> inbox() {
    if (inbox == null) {
      throw new IllegalStateException("no inbox created");
    }
    return inbox;
  }

  /** @return the clock given to the inbox */
  protected final SettableClock clock() {
    return clock;
  }

  private Receipt receiveAndCommit(String consumer, UUID id) {
    T transaction = begin();
    try {
      Receipt receipt = inbox().receive(transaction, consumer, id);
      commit(transaction);
      return receipt;
    } catch (RuntimeException | Error e) {
      rollback(transaction);
      throw e;
    }
  }

  /** Receives in a transaction that is then rolled back: tells whether the id is recorded, changing nothing. */
  private Receipt probe(String consumer, UUID id) {
    T transaction = begin();
    try {
      return inbox().receive(transaction, consumer, id);
    } finally {
      rollback(transaction);
    }
  }

  private static String consumer(String name) {
    return name + "-" + UUID.randomUUID();
  }

  @Test
  final void the_second_receive_of_an_id_is_a_duplicate() {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();

    assertThat(receiveAndCommit(consumer, id)).isEqualTo(Receipt.FIRST);
    assertThat(receiveAndCommit(consumer, id)).isEqualTo(Receipt.DUPLICATE);
  }

  @Test
  final void an_id_received_twice_in_one_transaction_is_a_duplicate_the_second_time() {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    T transaction = begin();
    try {
      assertThat(inbox().receive(transaction, consumer, id)).isEqualTo(Receipt.FIRST);
      assertThat(inbox().receive(transaction, consumer, id)).isEqualTo(Receipt.DUPLICATE);
    } finally {
      rollback(transaction);
    }
  }

  @Test
  final void transactions_racing_on_one_id_see_exactly_one_first() {
    String consumer = consumer("racer");
    for (int round = 0; round < 5; round++) {
      UUID id = UUID.randomUUID();
      List<Receipt> receipts = Race.run(4, WAIT, i -> () -> receiveAndCommit(consumer, id));

      assertThat(receipts).as("round %d", round).containsOnlyOnce(Receipt.FIRST);
      assertThat(receipts).filteredOn(r -> r == Receipt.DUPLICATE).hasSize(3);
    }
  }

  @Test
  final void a_rolled_back_transaction_leaves_the_id_unrecorded() {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    T transaction = begin();
    assertThat(inbox().receive(transaction, consumer, id)).isEqualTo(Receipt.FIRST);
    rollback(transaction);

    assertThat(receiveAndCommit(consumer, id)).isEqualTo(Receipt.FIRST);
    assertThat(receiveAndCommit(consumer, id)).isEqualTo(Receipt.DUPLICATE);
  }

  @Test
  final void a_receive_waiting_behind_a_holder_that_rolls_back_is_first() throws Exception {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    T holder = begin();
    assertThat(inbox().receive(holder, consumer, id)).isEqualTo(Receipt.FIRST);

    CompletableFuture<Receipt> waiter = CompletableFuture.supplyAsync(() -> receiveAndCommit(consumer, id));
    rollback(holder);

    assertThat(waiter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Receipt.FIRST);
  }

  @Test
  final void a_receive_waiting_behind_a_holder_that_commits_is_a_duplicate() throws Exception {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    T holder = begin();
    assertThat(inbox().receive(holder, consumer, id)).isEqualTo(Receipt.FIRST);

    CompletableFuture<Receipt> waiter = CompletableFuture.supplyAsync(() -> receiveAndCommit(consumer, id));
    commit(holder);

    assertThat(waiter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(Receipt.DUPLICATE);
  }

  @Test
  final void different_consumer_names_are_independent() {
    UUID id = UUID.randomUUID();
    String billing = consumer("billing");
    String shipping = consumer("shipping");

    assertThat(receiveAndCommit(billing, id)).isEqualTo(Receipt.FIRST);
    assertThat(receiveAndCommit(shipping, id)).isEqualTo(Receipt.FIRST);
    assertThat(receiveAndCommit(billing, id)).isEqualTo(Receipt.DUPLICATE);
    assertThat(receiveAndCommit(shipping, id)).isEqualTo(Receipt.DUPLICATE);
  }

  @Test
  final void retention_purges_only_records_old_enough_in_bounded_batches() {
    String consumer = consumer("billing");
    List<UUID> old = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      old.add(UUID.randomUUID());
      receiveAndCommit(consumer, old.get(i));
    }
    Instant cutOff = clock().advance(Duration.ofMinutes(30));
    clock().advance(Duration.ofMinutes(30));
    List<UUID> recent = List.of(UUID.randomUUID(), UUID.randomUUID());
    recent.forEach(id -> receiveAndCommit(consumer, id));

    assertThat(inbox().purge(cutOff, 2)).isEqualTo(2);
    assertThat(inbox().purge(cutOff, 2)).isEqualTo(2);
    assertThat(inbox().purge(cutOff, 2)).isEqualTo(1);
    assertThat(inbox().purge(cutOff, 2)).isZero();

    old.forEach(id -> assertThat(probe(consumer, id)).as("purged %s", id).isEqualTo(Receipt.FIRST));
    recent.forEach(id -> assertThat(probe(consumer, id)).as("kept %s", id).isEqualTo(Receipt.DUPLICATE));
  }

  @Test
  final void a_record_received_exactly_at_the_cut_off_is_kept() {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    receiveAndCommit(consumer, id);

    assertThat(inbox().purge(clock().instant(), 10)).isZero();
    assertThat(probe(consumer, id)).isEqualTo(Receipt.DUPLICATE);
  }

  @Test
  final void handle_once_runs_the_handler_only_for_the_first_receive() throws IOException {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    List<Optional<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      T transaction = begin();
      results.add(inbox().handleOnce(transaction, consumer, id, () -> {
        if (runs.get() < 0) {
          throw new IOException("declared, never thrown");
        }
        return runs.incrementAndGet();
      }));
      commit(transaction);
    }

    assertThat(runs).hasValue(1);
    assertThat(results).containsExactly(Optional.of(1), Optional.empty());
  }

  @Test
  final void a_handler_failure_propagates_unchanged_and_a_rollback_lets_the_redelivery_run_it_again() {
    String consumer = consumer("billing");
    UUID id = UUID.randomUUID();
    IOException failure = new IOException("downstream refused");
    T first = begin();
    try {
      assertThatThrownBy(() -> inbox().handleOnce(first, consumer, id, () -> {
        throw failure;
      })).isSameAs(failure);
    } finally {
      rollback(first);
    }

    T redelivery = begin();
    Optional<String> result = inbox().handleOnce(redelivery, consumer, id, () -> "applied");
    commit(redelivery);

    assertThat(result).contains("applied");
  }

  @Test
  final void a_blank_or_overlong_consumer_name_is_refused_and_the_longest_allowed_one_works() {
    UUID id = UUID.randomUUID();
    T transaction = begin();
    try {
      assertThatThrownBy(() -> inbox().receive(transaction, " ", id))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("consumerName");
      assertThatThrownBy(() -> inbox().receive(transaction, "c".repeat(Inbox.MAX_CONSUMER_NAME_LENGTH + 1), id))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("consumerName")
          .hasMessageContaining(String.valueOf(Inbox.MAX_CONSUMER_NAME_LENGTH));
    } finally {
      rollback(transaction);
    }
    String longest = UUID.randomUUID() + "c".repeat(Inbox.MAX_CONSUMER_NAME_LENGTH - 36);

    assertThat(receiveAndCommit(longest, id)).isEqualTo(Receipt.FIRST);
    assertThat(receiveAndCommit(longest, id)).isEqualTo(Receipt.DUPLICATE);
  }

  @Test
  final void purge_refuses_a_limit_that_is_not_positive() {
    assertThatThrownBy(() -> inbox().purge(clock().instant(), 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
