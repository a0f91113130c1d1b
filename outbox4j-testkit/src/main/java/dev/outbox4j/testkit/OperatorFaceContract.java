package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The store contract for the operator's actions on waiting entries and the discards' late-copy bounds (see
 * {@code OutboxStore#parkWaiting}, {@code #discardWaiting}, {@code #discard}), part of {@link OutboxStoreContract};
 * subclass that.
 *
 * <p>Two promises: an operator's park or discard never touches an entry a relay may be sending (under an unexpired
 * claim, run members included, judged when the entry is changed, also while relays claim concurrently); and every
 * discard passes the discarded entry's available time, which may be the bound by which a copy of its last send lands,
 * on to its key's next undelivered entry in key order, so the key's new head never overtakes that copy.
 */
public abstract class OperatorFaceContract extends OutboxStoreFixture {
  /** When a copy of a timed-out send lands at the latest, in the tests of late-copy bounds. */
  private static final Duration LATE_COPY = Duration.ofSeconds(60);

  /**
   * Gives an entry a {@code seq} above every other entry's, its place in its key's order ({@code key_seq}) unchanged:
   * the state MariaDB/MySQL's writers can leave, which number {@code seq} outside the key's lock.
   *
   * @param id the entry
   * @return {@code false}, having changed nothing, when the store numbers a key's entries in one order only (the
   *     in-memory store): the tests that need the two orders to differ are then skipped
   */
  protected boolean renumberAfterEveryEntry(UUID id) {
    return false;
  }

  /**
   * @return the store the operator's actions go through in the concurrent test: by default the test's own; a store
   *     over a database may answer another instance over the same tables with connections of its own, as the relay
   *     app's CLI in another process has
   */
  protected OutboxStore operatorStore() {
    return store;
  }

  /** @return the one claim of {@code key}'s head (a claim of everything), failed with a late-copy bound */
  private Instant failWithLateCopyBound() {
    List<Claim> claims = store.claim(10, now(), LEASE);
    assertThat(claims).hasSize(1);
    Instant bound = now().plus(LATE_COPY);
    assertThat(store.markFailed(claims.get(0), "timed out; a copy may land until " + bound, bound)).isTrue();
    return bound;
  }

  @Test
  public final void discard_waiting_passes_a_failed_entrys_late_copy_bound_to_its_keys_next_entry() {
    store.enqueue(message("slow", "K"));
    UUID next = store.enqueue(message("fast", "K")).id();
    Instant bound = failWithLateCopyBound();

    assertThat(store.discardWaiting(WaitingSelector.ofDestination("slow"), now(), 10)).isEqualTo(1);

    assertThat(store.claim(10, now(), LEASE)).as("the key's new head before the late copy landed").isEmpty();
    assertThat(store.claim(10, bound.minusMillis(1), LEASE)).isEmpty();
    assertThat(ids(store.claim(10, bound, LEASE))).containsExactly(next);
  }

  @Test
  public final void discard_waiting_passes_the_bound_to_the_next_entry_in_key_order_not_seq_order() {
    store.enqueue(message("slow", "K"));
    UUID second = store.enqueue(message("fast", "K")).id();
    UUID third = store.enqueue(message("fast", "K")).id();
    Instant bound = failWithLateCopyBound();
    Assumptions.assumeTrue(renumberAfterEveryEntry(second), "this store numbers a key's entries in one order");

    assertThat(store.discardWaiting(WaitingSelector.ofDestination("slow"), now(), 10)).isEqualTo(1);

    assertThat(store.claim(10, now(), LEASE)).as("the key's new head before the late copy landed").isEmpty();
    List<Claim> head = store.claim(10, bound, LEASE);
    assertThat(ids(head)).containsExactly(second);
    assertThat(store.markDelivered(head, bound)).isEmpty();
    assertThat(ids(store.claim(10, bound, LEASE))).containsExactly(third);
  }

  @Test
  public final void discard_of_a_keys_last_entry_keeps_its_bound_for_an_entry_of_the_key_written_later() {
    UUID failed = store.enqueue(message("d", "K")).id();
    Instant bound = failWithLateCopyBound();
    assertThat(store.parkWaiting(WaitingSelector.ofKey("K"), now(), 10)).isEqualTo(1);

    assertThat(store.discard(failed)).isTrue();
    UUID later = store.enqueue(message("d", "K")).id();

    assertThat(store.claim(10, now(), LEASE)).as("written after the discard, before the late copy landed").isEmpty();
    assertThat(store.claim(10, bound.minusMillis(1), LEASE)).isEmpty();
    assertThat(ids(store.claim(10, bound, LEASE))).containsExactly(later);
  }

  @Test
  public final void discard_waiting_of_a_keys_last_entry_keeps_its_bound_for_an_entry_of_the_key_written_later() {
    store.enqueue(message("slow", "K"));
    Instant bound = failWithLateCopyBound();
    assertThat(store.discardWaiting(WaitingSelector.ofKey("K"), now(), 10)).isEqualTo(1);

    UUID later = store.enqueue(message("fast", "K")).id();
    UUID other = store.enqueue(message("fast", "L")).id();

    List<Claim> first = store.claim(10, now(), LEASE);
    assertThat(ids(first)).as("only the other key's entry").containsExactly(other);
    assertThat(store.markDelivered(first, now())).isEmpty();
    assertThat(ids(store.claim(10, bound, LEASE))).containsExactly(later);
  }

  @Test
  public final void a_discarded_keys_bound_that_has_passed_holds_nothing_back() {
    store.enqueue(message("slow", "K"));
    Instant bound = failWithLateCopyBound();
    assertThat(store.discardWaiting(WaitingSelector.ofKey("K"), now(), 10)).isEqualTo(1);
    clock.set(bound.plusSeconds(1));
    store.enqueue(message("slow", "L"));
    failWithLateCopyBound();
    assertThat(store.discardWaiting(WaitingSelector.ofKey("L"), now(), 10)).as("drops K's passed bound").isEqualTo(1);

    UUID later = store.enqueue(message("fast", "K")).id();

    assertThat(ids(store.claim(10, now(), LEASE))).containsExactly(later);
  }

  @Test
  public final void park_and_requeue_of_a_failed_entry_keep_its_late_copy_bound() {
    UUID failed = store.enqueue(message("d", "K")).id();
    Instant bound = failWithLateCopyBound();

    assertThat(store.parkWaiting(WaitingSelector.ofKey("K"), now(), 10)).isEqualTo(1);
    assertThat(store.requeueAll(QuarantineSelector.ofKey("K"), now(), 10)).isEqualTo(1);

    assertThat(store.claim(10, now(), LEASE)).as("a copy of its last send may still land").isEmpty();
    assertThat(ids(store.claim(10, bound, LEASE))).containsExactly(failed);
  }

  /**
   * Writes three entries of key {@code K}, quarantines the head after a timed-out send (a late copy may land until
   * {@code now + LATE_COPY}) and renumbers the second after the third, so that {@code seq} order and key order differ.
   *
   * @return the head and the second entry
   */
  private List<UUID> quarantinedHeadWithKeyOrderApartFromSeqOrder() {
    UUID poisoned = store.enqueue(message("d", "K")).id();
    UUID second = store.enqueue(message("d", "K")).id();
    store.enqueue(message("d", "K"));
    Claim claim = store.claim(10, now(), LEASE).get(0);
    assertThat(store.quarantine(claim, poison("timed out"), now().plus(LATE_COPY))).isTrue();
    Assumptions.assumeTrue(renumberAfterEveryEntry(second), "this store numbers a key's entries in one order");
    return List.of(poisoned, second);
  }

  @Test
  public final void discard_of_a_quarantined_entry_passes_its_bound_to_the_next_entry_in_key_order() {
    List<UUID> key = quarantinedHeadWithKeyOrderApartFromSeqOrder();

    assertThat(store.discard(key.get(0))).isTrue();

    assertThat(store.claim(10, now(), LEASE)).as("the key's new head before the late copy landed").isEmpty();
    assertThat(ids(store.claim(10, now().plus(LATE_COPY), LEASE))).containsExactly(key.get(1));
  }

  @Test
  public final void discard_all_passes_each_bound_to_the_next_entry_in_key_order() {
    List<UUID> key = quarantinedHeadWithKeyOrderApartFromSeqOrder();

    assertThat(store.discardAll(QuarantineSelector.ofKey("K"), 10)).isEqualTo(1);

    assertThat(store.claim(10, now(), LEASE)).as("the key's new head before the late copy landed").isEmpty();
    assertThat(ids(store.claim(10, now().plus(LATE_COPY), LEASE))).containsExactly(key.get(1));
  }

  @Test
  public final void park_discard_and_requeue_by_selection_skip_a_claimed_run_and_act_behind_it() {
    List<UUID> key = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      key.add(store.enqueue(message("d", "K")).id());
    }
    List<Claim> run = store.claim(10, now(), LEASE, 2);
    assertThat(ids(run)).containsExactly(key.get(0), key.get(1));

    WaitingSelector selector = WaitingSelector.ofKey("K");
    assertThat(store.countWaiting(selector, now())).isEqualTo(1);
    assertThat(store.parkWaiting(selector, now(), 10)).as("only the entry behind the run").isEqualTo(1);
    assertThat(store.requeueAll(QuarantineSelector.ofKey("K"), now(), 10)).isEqualTo(1);
    assertThat(store.discardWaiting(selector, now(), 10)).as("only the entry behind the run").isEqualTo(1);
    assertThat(store.parkWaiting(selector, now(), 10)).isZero();
    assertThat(store.discardWaiting(selector, now(), 10)).isZero();

    assertThat(store.markDelivered(run, now())).as("every member of the run completes").isEmpty();
    assertThat(store.find(key.get(2))).isEmpty();
    assertThat(store.stats(now()).pending()).isZero();
  }

  @Test
  public final void operator_actions_during_a_drain_never_touch_an_entry_in_flight() {
    int keys = 12;
    int perKey = 20;
    Map<UUID, Integer> position = new HashMap<>();
    Map<UUID, String> keyOf = new HashMap<>();
    for (int i = 0; i < keys * perKey; i++) {
      String key = "K" + (i % keys);
      UUID id = store.enqueue(Message.builder().withDestination("d").withOrderingKey(key).build()).id();
      position.put(id, i);
      keyOf.put(id, key);
    }
    int total = position.size();
    WaitingSelector waiting = WaitingSelector.ofDestination("d");
    QuarantineSelector parked = QuarantineSelector.ofDestination("d");
    List<UUID> delivered = Collections.synchronizedList(new ArrayList<>());
    List<Claim> lost = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger discarded = new AtomicInteger();
    AtomicBoolean operatorDone = new AtomicBoolean();
    int relays = 4;

    OutboxStore operator = operatorStore();
    Race.run(relays + 1, Duration.ofSeconds(120), worker -> () -> {
      if (worker == relays) {
        // The operator: parks, requeues and discards waiting entries of the destination while the relays drain it.
        for (int round = 0; round < 2_000 && delivered.size() + discarded.get() < total / 2; round++) {
          operator.parkWaiting(waiting, now(), 2);
          if (round % 3 == 0) {
            discarded.addAndGet(operator.discardWaiting(waiting, now(), 1));
          }
          if (round % 2 == 0) {
            operator.requeueAll(parked, now(), 2);
          }
        }
        while (operator.requeueAll(parked, now(), 500) > 0) {
          // every parked entry back in line
        }
        operatorDone.set(true);
        return null;
      }
      int maxRun = worker % 2 == 0 ? 1 : 4;
      while (true) {
        List<Claim> claims = store.claim(4, now(), LEASE, maxRun);
        if (claims.isEmpty()) {
          if (operatorDone.get() && store.countWaiting(waiting, now()) == 0
              && store.countQuarantined(parked) == 0) {
            return null;
          }
          Thread.yield();
          continue;
        }
        claims.forEach(claim -> delivered.add(claim.id())); // handed to the transport
        lost.addAll(store.markDelivered(claims, now()));
      }
    });

    assertThat(lost).as("completions of entries an operator parked or discarded while they were in flight").isEmpty();
    assertThat(new HashSet<>(delivered)).as("each entry delivered once").hasSize(delivered.size());
    Set<UUID> gone = new HashSet<>(position.keySet());
    gone.removeAll(delivered);
    gone.removeIf(id -> store.find(id).isPresent());
    assertThat(gone).as("discarded, never delivered").hasSize(discarded.get());
    assertThat(delivered.size() + discarded.get()).isEqualTo(total);
    assertThat(store.stats(now()).pending()).isZero();
    Map<String, Integer> lastOfKey = new HashMap<>();
    synchronized (delivered) {
      for (UUID id : delivered) {
        Integer before = lastOfKey.put(keyOf.get(id), position.get(id));
        assertThat(before == null || before < position.get(id)).as("key order of " + keyOf.get(id)).isTrue();
      }
    }
  }
}
