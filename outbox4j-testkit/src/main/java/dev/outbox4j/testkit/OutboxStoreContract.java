package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.EntryTransitionException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.MessageRejectedException;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineGroup;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.WaitingSelector;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract (SPEC §3) in executable form. Every {@link OutboxStore} subclasses this suite and implements
 * {@link #newStore}; every rule of the claim face and the entry face is checked here, on the real backend.
 *
 * <p>It is long because the contract is: one test per rule, grouped by face in sections. Runs of a key and entries in
 * doubt are in {@link KeyRunsContract}, the operator's actions on waiting entries and the discards' late-copy bounds in
 * {@link OperatorFaceContract}, the shared fixture in {@link OutboxStoreFixture}.
 *
 * <p>Time is a {@link SettableClock}; nothing sleeps. Concurrency tests use real threads with bounded waits.
 */
public abstract class OutboxStoreContract extends KeyRunsContract {
  // ------------------------------------------------------------------------------------------ claimability

  @Test
  public final void claim_returns_claimable_entries_oldest_first_up_to_the_limit() {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      written.add(store.enqueue(unkeyed("m" + i)).id());
    }

    List<Claim> first = store.claim(3, now(), LEASE);
    List<Claim> second = store.claim(10, now(), LEASE);

    assertThat(ids(first)).containsExactlyElementsOf(written.subList(0, 3));
    assertThat(ids(second)).containsExactlyElementsOf(written.subList(3, 5));
    assertThat(first).allSatisfy(c -> assertThat(c.leaseUntil()).isEqualTo(now().plus(LEASE)));
  }

  @Test
  public final void a_claim_leaving_out_a_destination_finds_the_others_behind_its_backlog_and_its_heads_still_block() {
    UUID pausedHead = store.enqueue(message("paused", "K1")).id();
    List<UUID> pausedBacklog = new ArrayList<>();
    for (int i = 0; i < 30; i++) { // more than the window of a claim of 4: it is clogged by them
      pausedBacklog.add(store.enqueue(Message.builder().withDestination("paused").withPayload("p" + i).build()).id());
    }
    store.enqueue(message("orders", "K1")); // behind the paused destination's head of K1: blocked
    UUID otherKey = store.enqueue(message("orders", "K2")).id();
    List<UUID> flowing = new ArrayList<>(List.of(otherKey));
    for (int i = 0; i < 3; i++) {
      flowing.add(store.enqueue(Message.builder().withDestination(i == 1 ? "audit" : "orders").withPayload("o" + i)
          .build()).id());
    }

    assertThat(ids(store.claim(4, now(), LEASE, 1, Set.of("paused")))).containsExactlyElementsOf(flowing);
    assertThat(store.claim(4, now(), LEASE, 1, Set.of("paused"))).isEmpty();
    // Left out, not changed: without the skip, the oldest come first as always.
    assertThat(ids(store.claim(2, now(), LEASE, 1, Set.of()))).containsExactly(pausedHead, pausedBacklog.get(0));
  }

  @Test
  public final void claim_on_an_empty_store_returns_nothing() {
    assertThat(store.claim(10, now(), LEASE)).isEmpty();
  }

  @Test
  public final void claim_refuses_a_non_positive_limit_or_lease() {
    assertThatThrownBy(() -> store.claim(0, now(), LEASE)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.claim(1, now(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void claim_skips_entries_held_by_an_unexpired_lease() {
    store.enqueue(unkeyed("a"));
    assertThat(store.claim(10, now(), LEASE)).hasSize(1);

    assertThat(store.claim(10, now().plus(LEASE).minusMillis(1), LEASE)).isEmpty();
  }

  @Test
  public final void an_expired_claim_is_claimable_again_with_a_new_token() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim first = store.claim(10, now(), LEASE).get(0);

    List<Claim> again = store.claim(10, now().plus(LEASE), LEASE);

    assertThat(ids(again)).containsExactly(id);
    assertThat(again.get(0).token()).isNotEqualTo(first.token());
  }

  @Test
  public final void entries_are_not_claimable_before_their_not_before_time() {
    Instant later = now().plusSeconds(60);
    UUID id = store.enqueue(Message.builder().withDestination("d").withNotBefore(later).build()).id();

    assertThat(store.claim(10, now(), LEASE)).isEmpty();
    assertThat(ids(store.claim(10, later, LEASE))).containsExactly(id);
  }

  @Test
  public final void concurrent_claimers_never_receive_the_same_entry_while_its_claim_holds() throws Exception {
    int entries = 600;
    Set<UUID> written = new HashSet<>();
    for (int i = 0; i < entries; i++) {
      String key = i % 3 == 0 ? null : "k" + (i % 40);
      written.add(store.enqueue(Message.builder().withDestination("d").withOrderingKey(key).build()).id());
    }
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Map<UUID, Integer> claimedBy = new ConcurrentHashMap<>();
    List<UUID> duplicates = Collections.synchronizedList(new ArrayList<>());
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int worker = t;
        workers.add(pool.submit(() -> {
          start.await();
          int idleRounds = 0;
          while (idleRounds < 3) {
            List<Claim> claims = store.claim(7, now(), LEASE);
            if (claims.isEmpty()) {
              idleRounds++;
            } else {
              idleRounds = 0;
            }
            List<Claim> unkeyedOrHeads = new ArrayList<>();
            for (Claim claim : claims) {
              if (claimedBy.putIfAbsent(claim.id(), worker) != null) {
                duplicates.add(claim.id());
              }
              unkeyedOrHeads.add(claim);
            }
            // Retire keyed heads so their successors become claimable; unkeyed entries stay claimed.
            store.markDelivered(unkeyedOrHeads.stream().filter(c -> c.message().orderingKey().isPresent()).toList(),
                now());
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(duplicates).as("entries claimed twice while their claim held").isEmpty();
    assertThat(claimedBy.keySet()).isEqualTo(written);
  }

  // ------------------------------------------------------------------------------------------ per-key order

  @Test
  public final void at_most_one_entry_per_key_is_claimed_and_only_the_oldest_of_its_key() {
    UUID a1 = store.enqueue(message("d", "A")).id();
    UUID a2 = store.enqueue(message("d", "A")).id();
    UUID b1 = store.enqueue(message("d", "B")).id();
    UUID free = store.enqueue(unkeyed("x")).id();

    List<Claim> claims = store.claim(10, now(), LEASE);

    assertThat(ids(claims)).containsExactly(a1, b1, free);
    assertThat(ids(claims)).doesNotContain(a2);
  }

  @Test
  public final void no_entry_of_a_key_is_claimed_while_its_head_is_claimed() {
    store.enqueue(message("d", "A"));
    store.enqueue(message("d", "A"));
    store.claim(10, now(), LEASE);

    assertThat(store.claim(10, now(), LEASE)).isEmpty();
    assertThat(store.claim(10, now().plus(LEASE).minusMillis(1), LEASE)).isEmpty();
  }

  @Test
  public final void a_keys_entries_are_handed_out_one_by_one_in_write_order() {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      written.add(store.enqueue(message("d", "A")).id());
    }
    List<UUID> handedOut = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      List<Claim> claims = store.claim(10, now(), LEASE);
      assertThat(claims).hasSize(1);
      handedOut.add(claims.get(0).id());
      assertThat(store.markDelivered(claims, now())).isEmpty();
    }
    assertThat(handedOut).containsExactlyElementsOf(written);
    assertThat(store.claim(10, now(), LEASE)).isEmpty();
  }

  @Test
  public final void a_failed_head_blocks_its_key_until_its_next_attempt() {
    UUID head = store.enqueue(message("d", "A")).id();
    store.enqueue(message("d", "A"));
    Claim claim = store.claim(10, now(), LEASE).get(0);
    Instant retryAt = now().plusSeconds(10);
    assertThat(store.markFailed(claim, "broker down", retryAt)).isTrue();

    assertThat(store.claim(10, now(), LEASE)).isEmpty();
    assertThat(ids(store.claim(10, retryAt, LEASE))).containsExactly(head);
  }

  @Test
  public final void postpone_hands_an_entry_back_without_counting_an_attempt() {
    UUID head = store.enqueue(message("d", "A")).id();
    store.enqueue(message("d", "A"));
    Claim claim = store.claim(10, now(), LEASE).get(0);
    Instant retryAt = now().plusSeconds(10);

    assertThat(store.postpone(claim, "broker unreachable", retryAt)).isTrue();

    OutboxEntry entry = store.find(head).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(entry.attempts()).isZero();
    assertThat(entry.lastError()).isEqualTo("broker unreachable");
    assertThat(entry.availableAt()).isEqualTo(retryAt);
    assertThat(store.claim(10, now(), LEASE)).as("the key stays blocked until then").isEmpty();
    Claim again = store.claim(10, retryAt, LEASE).get(0);
    assertThat(again.id()).isEqualTo(head);
    assertThat(store.markFailed(again, "500", retryAt.plusSeconds(1))).isTrue();
    Claim third = store.claim(10, retryAt.plusSeconds(1), LEASE).get(0);
    assertThat(store.postpone(third, "still down", retryAt.plusSeconds(2))).isTrue();
    assertThat(store.find(head).orElseThrow().attempts()).as("only the message's own failure counts").isEqualTo(1);
  }

  @Test
  public final void a_stale_claims_postpone_changes_nothing() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim stale = store.claim(10, now(), LEASE).get(0);
    store.claim(10, now().plus(LEASE), LEASE);
    OutboxEntry before = store.find(id).orElseThrow();

    assertThat(store.postpone(stale, "late", now().plusSeconds(999))).isFalse();

    assertThat(store.find(id).orElseThrow().version()).isEqualTo(before.version());
  }

  @Test
  public final void release_hands_unsent_claims_back_untouched_and_claimable_at_once() {
    UUID head = store.enqueue(message("d", "A")).id();
    store.enqueue(message("d", "A"));
    UUID loose = store.enqueue(unkeyed("b")).id();
    Claim failing = store.claim(1, now(), LEASE).get(0);
    assertThat(store.markFailed(failing, "500", now())).isTrue();
    List<Claim> claims = store.claim(10, now(), LEASE);
    assertThat(ids(claims)).containsExactly(head, loose);
    OutboxEntry before = store.find(head).orElseThrow();

    assertThat(store.release(claims)).isEmpty();

    OutboxEntry after = store.find(head).orElseThrow();
    assertThat(after.status()).isEqualTo(EntryStatus.FAILED);
    assertThat(after.attempts()).isEqualTo(1);
    assertThat(after.lastError()).isEqualTo("500");
    assertThat(after.availableAt()).isEqualTo(before.availableAt());
    assertThat(store.find(loose).orElseThrow().attempts()).isZero();
    assertThat(store.markDelivered(claims, now())).as("released claims are no longer held").hasSize(2);
    assertThat(ids(store.claim(10, now(), LEASE))).as("claimable at once, the key's head first")
        .containsExactly(head, loose);
  }

  @Test
  public final void a_lost_claims_release_changes_nothing() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim stale = store.claim(10, now(), LEASE).get(0);
    Claim current = store.claim(10, now().plus(LEASE), LEASE).get(0);
    OutboxEntry before = store.find(id).orElseThrow();

    assertThat(store.release(List.of(stale))).containsExactly(stale);

    assertThat(store.find(id).orElseThrow().version()).isEqualTo(before.version());
    assertThat(store.markDelivered(List.of(current), now().plus(LEASE))).as("the newer claim still holds").isEmpty();
  }

  @Test
  public final void a_quarantined_head_blocks_its_key_and_only_its_key() {
    UUID a1 = store.enqueue(message("d", "A")).id();
    store.enqueue(message("d", "A"));
    UUID b1 = store.enqueue(message("d", "B")).id();
    Claim a1Claim = store.claim(1, now(), LEASE).get(0);
    assertThat(a1Claim.id()).isEqualTo(a1);
    assertThat(store.quarantine(a1Claim, poison("poison"))).isTrue();

    List<Claim> claims = store.claim(10, now().plusSeconds(3600), LEASE);

    assertThat(ids(claims)).containsExactly(b1);
  }

  @Test
  public final void requeue_puts_a_quarantined_entry_back_at_the_head_of_its_key() {
    UUID a1 = store.enqueue(message("d", "A")).id();
    UUID a2 = store.enqueue(message("d", "A")).id();
    store.quarantine(store.claim(1, now(), LEASE).get(0), poison("poison"));

    assertThat(store.requeue(a1, now())).isTrue();

    OutboxEntry requeued = store.find(a1).orElseThrow();
    assertThat(requeued.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(requeued.attempts()).isZero();
    List<Claim> claims = store.claim(10, now(), LEASE);
    assertThat(ids(claims)).containsExactly(a1);
    store.markDelivered(claims, now());
    assertThat(ids(store.claim(10, now(), LEASE))).containsExactly(a2);
  }

  @Test
  public final void discard_deletes_a_quarantined_entry_and_unblocks_its_key() {
    UUID a1 = store.enqueue(message("d", "A")).id();
    UUID a2 = store.enqueue(message("d", "A")).id();
    store.quarantine(store.claim(1, now(), LEASE).get(0), poison("poison"));

    assertThat(store.discard(a1)).isTrue();

    assertThat(store.find(a1)).isEmpty();
    assertThat(ids(store.claim(10, now(), LEASE))).containsExactly(a2);
  }

  @Test
  public final void requeue_and_discard_refuse_entries_that_are_not_quarantined() {
    UUID id = store.enqueue(unkeyed("a")).id();

    assertThat(store.requeue(id, now())).isFalse();
    assertThat(store.discard(id)).isFalse();
    assertThat(store.requeue(UUID.randomUUID(), now())).isFalse();
    assertThat(store.discard(UUID.randomUUID())).isFalse();
    assertThat(store.find(id)).isPresent();
  }

  // ------------------------------------------------------------------------------------------ fencing

  @Test
  public final void a_stale_claims_mark_delivered_changes_nothing_and_reports_the_lost_claim() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim stale = store.claim(10, now(), LEASE).get(0);
    Claim live = store.claim(10, now().plus(LEASE), LEASE).get(0);

    List<Claim> lost = store.markDelivered(List.of(stale), now().plus(LEASE));

    assertThat(ids(lost)).containsExactly(id);
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.markDelivered(List.of(live), now().plus(LEASE))).isEmpty();
    assertThat(store.find(id)).isEmpty();
  }

  @Test
  public final void a_stale_claims_mark_failed_and_quarantine_change_nothing() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim stale = store.claim(10, now(), LEASE).get(0);
    store.claim(10, now().plus(LEASE), LEASE);
    OutboxEntry before = store.find(id).orElseThrow();

    assertThat(store.markFailed(stale, "late", now().plusSeconds(999))).isFalse();
    assertThat(store.quarantine(stale, poison("late"))).isFalse();

    OutboxEntry after = store.find(id).orElseThrow();
    assertThat(after.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(after.attempts()).isZero();
    assertThat(after.version()).isEqualTo(before.version());
  }

  @Test
  public final void an_expired_claim_that_nobody_took_over_still_completes() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim claim = store.claim(10, now(), LEASE).get(0);

    assertThat(store.markDelivered(List.of(claim), now().plus(LEASE).plusSeconds(1))).isEmpty();
    assertThat(store.find(id)).isEmpty();
  }

  @Test
  public final void a_takeover_of_part_of_an_expired_claim_leaves_the_rest_of_it_to_complete() {
    List<UUID> written = List.of(store.enqueue(unkeyed("a")).id(), store.enqueue(unkeyed("b")).id(),
        store.enqueue(unkeyed("c")).id());
    List<Claim> expired = store.claim(10, now(), LEASE);
    assertThat(ids(expired)).containsExactlyElementsOf(written);
    Instant later = now().plus(LEASE).plusSeconds(1);
    List<Claim> takenOver = store.claim(1, later, LEASE);
    assertThat(ids(takenOver)).containsExactly(written.get(0));

    List<Claim> lost = store.markDelivered(expired, later);

    assertThat(ids(lost)).as("only the entry another claim took over").containsExactly(written.get(0));
    assertThat(store.find(written.get(1))).as("nobody took it over: its delivery is recorded").isEmpty();
    assertThat(store.find(written.get(2))).isEmpty();
    assertThat(store.find(written.get(0))).isPresent();
    assertThat(store.claim(10, later, LEASE)).as("nothing left to send again").isEmpty();
    assertThat(store.markDelivered(takenOver, later)).as("the takeover's own claim completes").isEmpty();
    assertThat(store.find(written.get(0))).isEmpty();
  }

  @Test
  public final void a_takeover_of_a_runs_head_leaves_the_rest_of_the_run_to_complete() {
    List<UUID> run = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      run.add(store.enqueue(message("d", "K")).id());
    }
    List<Claim> expired = store.claim(10, now(), LEASE, 3);
    assertThat(ids(expired)).containsExactlyElementsOf(run);
    Instant later = now().plus(LEASE).plusSeconds(1);
    List<Claim> head = store.claim(10, later, LEASE, 1);
    assertThat(ids(head)).containsExactly(run.get(0));

    assertThat(store.markFailed(expired.get(0), "late", later.plusSeconds(5))).as("taken over").isFalse();
    assertThat(store.postpone(List.of(expired.get(1), expired.get(2)), "broker down", later.plusSeconds(5)))
        .as("nobody took them over: their outcome is recorded").isEmpty();

    assertThat(store.find(run.get(0)).orElseThrow().attempts()).as("the late failure changed nothing").isZero();
    assertThat(store.find(run.get(1)).orElseThrow().lastError()).isEqualTo("broker down");
    assertThat(store.markDelivered(head, later)).isEmpty();
  }

  @Test
  public final void mark_delivered_retires_a_whole_batch_and_reports_only_lost_claims() {
    for (int i = 0; i < 50; i++) {
      store.enqueue(unkeyed("m" + i));
    }
    List<Claim> claims = store.claim(50, now(), LEASE);
    UUID stolen = claims.get(7).id();
    assertThat(store.markFailed(claims.get(7), "x", now())).isTrue(); // releases entry 7 ...
    List<Claim> retaken = store.claim(50, now(), LEASE); // ... and another claim takes it over
    assertThat(ids(retaken)).containsExactly(stolen);

    List<Claim> lost = store.markDelivered(claims, now());

    assertThat(ids(lost)).containsExactly(stolen);
    assertThat(store.find(stolen)).isPresent();
    assertThat(store.stats(now()).pending()).isEqualTo(1);
  }

  @Test
  public final void an_entry_face_mutation_cancels_a_claim() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Claim claim = store.claim(10, now(), LEASE).get(0);

    store.markFailed(store.find(id).orElseThrow(), "operator says retry", now());

    assertThat(ids(store.markDelivered(List.of(claim), now()))).containsExactly(id);
    assertThat(store.find(id).orElseThrow().status()).isEqualTo(EntryStatus.FAILED);
  }

  // ------------------------------------------------------------------------------------------ failures

  @Test
  public final void mark_failed_counts_attempts_keeps_the_last_error_and_schedules_the_next_attempt() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Instant firstRetry = now().plusSeconds(5);
    store.markFailed(store.claim(1, now(), LEASE).get(0), "timeout 1", firstRetry);
    Instant secondRetry = firstRetry.plusSeconds(20);
    store.markFailed(store.claim(1, firstRetry, LEASE).get(0), "timeout 2", secondRetry);

    OutboxEntry entry = store.find(id).orElseThrow();

    assertThat(entry.status()).isEqualTo(EntryStatus.FAILED);
    assertThat(entry.attempts()).isEqualTo(2);
    assertThat(entry.lastError()).isEqualTo("timeout 2");
    assertThat(entry.availableAt()).isEqualTo(secondRetry);
    assertThat(store.claim(1, secondRetry.minusMillis(1), LEASE)).isEmpty();
    assertThat(ids(store.claim(1, secondRetry, LEASE))).containsExactly(id);
  }

  @Test
  public final void find_retry_ready_returns_failed_entries_whose_time_has_come() {
    UUID early = store.enqueue(unkeyed("a")).id();
    UUID late = store.enqueue(unkeyed("b")).id();
    store.enqueue(unkeyed("c"));
    List<Claim> claims = store.claim(2, now(), LEASE);
    store.markFailed(claims.get(0), "e", now().plusSeconds(10));
    store.markFailed(claims.get(1), "e", now().plusSeconds(20));

    assertThat(store.findRetryReady(now().plusSeconds(9), 10)).isEmpty();
    assertThat(store.findRetryReady(now().plusSeconds(10), 10)).extracting(OutboxEntry::id).containsExactly(early);
    assertThat(store.findRetryReady(now().plusSeconds(20), 10)).extracting(OutboxEntry::id)
        .containsExactly(early, late);
    assertThat(store.findRetryReady(now().plusSeconds(20), 1)).extracting(OutboxEntry::id).containsExactly(early);
  }

  @Test
  public final void quarantined_lists_reason_attempts_last_error_and_key_page_by_page() {
    List<UUID> poisoned = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      poisoned.add(store.enqueue(message("d", "K" + i)).id());
    }
    store.enqueue(unkeyed("healthy"));
    for (Claim claim : store.claim(5, now(), LEASE)) {
      store.quarantine(claim, poison("schema rejected"));
    }

    List<OutboxEntry> page1 = store.quarantined(QuarantineQuery.first(3));
    List<OutboxEntry> page2 = store.quarantined(QuarantineQuery.first(3).after(page1.get(2).sequence()));

    assertThat(page1).extracting(OutboxEntry::id).containsExactlyElementsOf(poisoned.subList(0, 3));
    assertThat(page2).extracting(OutboxEntry::id).containsExactlyElementsOf(poisoned.subList(3, 5));
    OutboxEntry first = page1.get(0);
    assertThat(first.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(first.quarantineReason()).isEqualTo("schema rejected");
    assertThat(first.lastError()).isEqualTo("schema rejected");
    assertThat(first.attempts()).isEqualTo(1);
    assertThat(first.message().orderingKey()).contains("K0");
  }

  // ------------------------------------------------------------------------------------------ entry face

  @Test
  public final void enqueue_stores_a_pending_entry_under_the_message_id() {
    Message message = unkeyed("hello");

    OutboxEntry entry = store.enqueue(message);

    assertThat(entry.id()).isEqualTo(message.id());
    assertThat(entry.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(entry.attempts()).isZero();
    assertThat(entry.version()).isPositive();
    assertThat(entry.createdAt()).isEqualTo(now());
    assertThat(store.find(message.id())).contains(entry);
    assertThat(store.find(UUID.randomUUID())).isEmpty();
  }

  @Test
  public final void enqueue_refuses_an_id_that_exists() {
    Message message = unkeyed("a");
    store.enqueue(message);

    assertThatThrownBy(() -> store.enqueue(message))
        .isInstanceOfSatisfying(DuplicateMessageException.class, e -> assertThat(e.messageId()).isEqualTo(message.id()));
    assertThat(store.stats(now()).pending()).isEqualTo(1);
  }

  @Test
  public final void enqueue_refuses_a_message_over_the_limits_and_writes_nothing() {
    byte[] tooBig = new byte[MessageLimits.DEFAULT_MAX_PAYLOAD_BYTES + 1];
    Message message = Message.builder().withDestination("d").withPayload(tooBig).build();

    assertThatThrownBy(() -> store.enqueue(message))
        .isInstanceOfSatisfying(MessageRejectedException.class, e -> {
          assertThat(e.field()).isEqualTo("payload");
          assertThat(e.limit()).contains(String.valueOf(MessageLimits.DEFAULT_MAX_PAYLOAD_BYTES));
        });
    assertThat(store.find(message.id())).isEmpty();
  }

  @Test
  public final void find_pending_returns_never_attempted_entries_in_delivery_order() {
    UUID a = store.enqueue(unkeyed("a")).id();
    UUID b = store.enqueue(unkeyed("b")).id();
    UUID c = store.enqueue(unkeyed("c")).id();
    store.markFailed(store.find(b).orElseThrow(), "e", null);

    assertThat(store.findPending(10)).extracting(OutboxEntry::id).containsExactly(a, c);
    assertThat(store.findPending(1)).extracting(OutboxEntry::id).containsExactly(a);
  }

  @Test
  public final void save_upserts_by_id_and_never_creates_a_second_entry() {
    Message message = message("d", "A");
    OutboxEntry inserted = store.save(OutboxEntry.pending(message, now()));
    OutboxEntry failed = inserted.withStatus(EntryStatus.FAILED).withAttempts(3, "boom");

    OutboxEntry updated = store.save(failed);

    assertThat(updated.id()).isEqualTo(message.id());
    assertThat(updated.sequence()).isEqualTo(inserted.sequence());
    assertThat(updated.version()).isGreaterThan(inserted.version());
    assertThat(updated.attempts()).isEqualTo(3);
    assertThat(store.find(message.id())).contains(updated);
    assertThat(store.findRetryReady(now(), 10)).extracting(OutboxEntry::id).containsExactly(message.id());
    assertThat(store.stats(now()).pending()).isEqualTo(1);
  }

  @Test
  public final void save_with_a_stale_version_raises_an_optimistic_conflict_and_changes_nothing() {
    OutboxEntry read = store.enqueue(unkeyed("a"));
    OutboxEntry changed = store.markFailed(read, "other writer", null);

    assertThatThrownBy(() -> store.save(read.withAttempts(9, "mine")))
        .isInstanceOfSatisfying(OptimisticConflictException.class, e -> {
          assertThat(e.entryId()).isEqualTo(read.id());
          assertThat(e.expectedVersion()).isEqualTo(read.version());
        });
    assertThat(store.find(read.id())).contains(changed);
  }

  @Test
  public final void entry_face_mutations_of_a_changed_entry_raise_an_optimistic_conflict() {
    OutboxEntry read = store.enqueue(unkeyed("a"));
    Claim claim = store.claim(1, now(), LEASE).get(0); // a claim changes the entry too, where it writes the row
    if (!claimChangesTheEntry()) {
      OutboxEntry failed = store.markFailed(read, "operator", null);
      assertThat(failed.status()).isEqualTo(EntryStatus.PARKED);
      assertThat(store.markDelivered(List.of(claim), now())).as("the claim was cancelled").containsExactly(claim);
      assertThatThrownBy(() -> store.markDeadLettered(read, "e", "r"))
          .isInstanceOf(OptimisticConflictException.class);
      return;
    }

    assertThatThrownBy(() -> store.markDelivered(read, "ok")).isInstanceOf(OptimisticConflictException.class);
    assertThatThrownBy(() -> store.markFailed(read, "e", null)).isInstanceOf(OptimisticConflictException.class);
    assertThatThrownBy(() -> store.markDeadLettered(read, "e", "r"))
        .isInstanceOf(OptimisticConflictException.class);
    assertThat(store.find(read.id()).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
  }

  @Test
  public final void entry_face_mutations_of_an_unknown_entry_raise_not_found() {
    OutboxEntry ghost = OutboxEntry.pending(unkeyed("ghost"), now());

    assertThatThrownBy(() -> store.markDelivered(ghost, null)).isInstanceOf(EntryNotFoundException.class);
    assertThatThrownBy(() -> store.markFailed(ghost, "e", null)).isInstanceOf(EntryNotFoundException.class);
    assertThatThrownBy(() -> store.markDeadLettered(ghost, "e", null)).isInstanceOf(EntryNotFoundException.class);
  }

  @Test
  public final void entry_face_mark_failed_then_delivered_follows_the_entry() {
    OutboxEntry read = store.enqueue(unkeyed("a"));
    Instant retryAt = now().plusSeconds(30);

    OutboxEntry failed = store.markFailed(read, "503", retryAt);
    assertThat(failed.status()).isEqualTo(EntryStatus.FAILED);
    assertThat(failed.attempts()).isEqualTo(1);
    assertThat(failed.availableAt()).isEqualTo(retryAt);
    assertThat(failed.version()).isGreaterThan(read.version());

    OutboxEntry delivered = store.markDelivered(failed, "offset 7");
    assertThat(delivered.status()).isEqualTo(EntryStatus.DELIVERED);
    assertThat(store.find(read.id())).isEmpty(); // deleted on delivery
  }

  @Test
  public final void mark_dead_lettered_quarantines_the_entry_with_its_reason() {
    OutboxEntry read = store.enqueue(message("d", "A"));
    UUID next = store.enqueue(message("d", "A")).id();

    OutboxEntry dead = store.markDeadLettered(read, "400 Bad Request", "schema invalid");

    assertThat(dead.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(dead.lastError()).isEqualTo("400 Bad Request");
    assertThat(dead.quarantineReason()).isEqualTo("schema invalid");
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id).containsExactly(read.id());
    assertThat(store.claim(10, now(), LEASE)).extracting(Claim::id).doesNotContain(next);
  }

  // ------------------------------------------------------------------------------------------ retention

  @Test
  public final void delete_on_delivery_removes_delivered_entries() {
    UUID id = store.enqueue(unkeyed("a")).id();
    store.markDelivered(store.claim(1, now(), LEASE), now());

    assertThat(store.find(id)).isEmpty();
    assertThat(store.purgeDelivered(now(), 10)).isZero();
  }

  @Test
  public final void keep_for_retains_delivered_entries_and_purges_them_in_bounded_batches() {
    OutboxStore keeping = newStore(clock, Retention.keepFor(Duration.ofHours(1)));
    assertThat(keeping.retention().keepPeriod()).contains(Duration.ofHours(1));
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(keeping.enqueue(unkeyed("m" + i)).id());
    }
    Instant deliveredAt = now();
    keeping.markDelivered(keeping.claim(10, now(), LEASE), deliveredAt);

    OutboxEntry kept = keeping.find(ids.get(0)).orElseThrow();
    assertThat(kept.status()).isEqualTo(EntryStatus.DELIVERED);
    assertThat(kept.deliveredAt()).isEqualTo(deliveredAt);
    assertThat(keeping.claim(10, now().plusSeconds(7200), LEASE)).isEmpty();
    assertThat(keeping.purgeDelivered(deliveredAt.plus(Duration.ofMinutes(59)), 10)).isZero();

    Instant later = deliveredAt.plus(Duration.ofHours(1));
    assertThat(keeping.purgeDelivered(later, 2)).isEqualTo(2);
    assertThat(keeping.purgeDelivered(later, 2)).isEqualTo(2);
    assertThat(keeping.purgeDelivered(later, 2)).isEqualTo(1);
    assertThat(keeping.purgeDelivered(later, 2)).isZero();
    assertThat(ids).allSatisfy(id -> assertThat(keeping.find(id)).isEmpty());
  }

  @Test
  public final void a_kept_delivered_entry_does_not_block_its_key() {
    OutboxStore keeping = newStore(clock, Retention.keepFor(Duration.ofHours(1)));
    keeping.enqueue(message("d", "A"));
    UUID second = keeping.enqueue(message("d", "A")).id();
    keeping.markDelivered(keeping.claim(10, now(), LEASE), now());

    assertThat(keeping.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(second);
  }

  // ------------------------------------------------------------------------------------------ data

  @Test
  public final void payload_bytes_and_headers_round_trip_verbatim() {
    byte[] payload = new byte[256];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) (255 - i); // starts with 0xFF, never valid UTF-8
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    headers.put("unicode", "ünïcødé ✓ \"quoted\" \\ back\nslash");
    headers.put("empty", "");
    Instant notBefore = now().minusSeconds(5);
    Message message = Message.builder()
        .withDestination("payments.v1")
        .withOrderingKey("account-42")
        .withPayload(payload)
        .withContentType("application/x-protobuf")
        .withHeaders(headers)
        .withNotBefore(notBefore)
        .build();

    store.enqueue(message);

    Message stored = store.find(message.id()).orElseThrow().message();
    assertThat(stored.payload()).isEqualTo(payload);
    assertThat(stored.headers()).isEqualTo(headers);
    assertThat(stored).isEqualTo(message);
    Message claimed = store.claim(1, now(), LEASE).get(0).message();
    assertThat(claimed).isEqualTo(message);
  }

  @Test
  public final void an_empty_payload_round_trips_as_empty() {
    Message message = Message.builder().withDestination("d").build();

    store.enqueue(message);

    assertThat(store.find(message.id()).orElseThrow().message().payload()).isEmpty();
  }

  @Test
  public final void stats_count_pending_in_flight_quarantined_and_the_oldest_pending() {
    Instant first = now();
    store.enqueue(unkeyed("a"));
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(unkeyed("b"));
    store.enqueue(message("d", "Q"));
    store.claim(1, now(), LEASE); // a is in flight
    Claim q = store.claim(10, now(), LEASE).stream().filter(c -> c.message().orderingKey().isPresent())
        .findFirst().orElseThrow();
    store.quarantine(q, poison("bad"));

    OutboxStats stats = store.stats(now());

    assertThat(stats.pending()).isEqualTo(2);
    assertThat(stats.inFlight()).isEqualTo(2);
    assertThat(stats.quarantined()).isEqualTo(1);
    assertThat(stats.oldestPending()).contains(first);
    assertThat(store.stats(now().plus(LEASE)).inFlight()).isZero();
  }

  // ------------------------------------------------------------------------------------------ stats: waiting, blocked

  @Test
  public final void an_entry_behind_a_quarantined_head_counts_as_blocked_not_waiting_and_the_lag_leaves_it_out() {
    Instant t0 = now();
    OutboxEntry head = store.enqueue(message("erp", "A"));
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("erp", "A")); // behind the head
    clock.advance(Duration.ofSeconds(1));
    Instant otherKeyAt = now();
    UUID otherKey = store.enqueue(message("erp", "B")).id();
    Map<UUID, Claim> claimed = byId(store.claim(10, now(), LEASE));
    assertThat(claimed).containsOnlyKeys(head.id(), otherKey);
    store.quarantine(claimed.get(head.id()), poison("bad"));
    store.markFailed(claimed.get(otherKey), "busy", now().plusSeconds(60)); // due later

    OutboxStats stats = store.stats(now());

    assertThat(stats.waiting()).as("waiting: B, due at its next attempt").isEqualTo(1);
    assertThat(stats.blocked()).as("blocked: the second A").isEqualTo(1);
    assertThat(stats.inFlight()).isZero();
    assertThat(stats.quarantined()).isEqualTo(1);
    assertThat(stats.pending()).isEqualTo(2);
    assertThat(stats.oldestWaiting()).contains(otherKeyAt);
    assertThat(stats.oldestBlocked()).contains(t0.plusSeconds(1));
    assertThat(stats.oldestPending()).contains(t0.plusSeconds(1));
    clock.advance(Duration.ofSeconds(100));
    assertThat(store.stats(now()).lag(now())).isEqualTo(Duration.ofSeconds(100));
    assertThat(store.stats(now()).blockedAge(now())).isEqualTo(Duration.ofSeconds(101));

    assertThat(store.requeue(head.id(), now())).isTrue();

    OutboxStats requeued = store.stats(now());
    assertThat(requeued.waiting()).isEqualTo(3);
    assertThat(requeued.blocked()).isZero();
    assertThat(requeued.quarantined()).isZero();
    assertThat(requeued.oldestWaiting()).contains(t0);
    assertThat(requeued.oldestBlocked()).isEmpty();
  }

  @Test
  public final void an_entry_behind_a_parked_entry_is_blocked_but_one_ahead_of_it_still_waits() {
    OutboxEntry first = store.enqueue(message("erp", "A"));
    clock.advance(Duration.ofSeconds(1));
    OutboxEntry second = store.enqueue(message("erp", "A"));
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("erp", "A"));
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("erp", "A"));
    store.markFailed(second, "rejected by hand", null); // parked, behind a waiting head

    OutboxStats stats = store.stats(now());

    assertThat(stats.waiting()).as("the head, ahead of the parked entry").isEqualTo(1);
    assertThat(stats.blocked()).as("the two behind the parked entry").isEqualTo(2);
    assertThat(stats.quarantined()).isEqualTo(1);
    assertThat(stats.oldestWaiting()).contains(first.createdAt());
    assertThat(stats.oldestBlocked()).contains(first.createdAt().plusSeconds(2));
  }

  @Test
  public final void a_claimed_entry_counts_as_waiting_and_in_flight_until_its_lease_expires() {
    Instant t0 = now();
    store.enqueue(unkeyed("a"));
    store.enqueue(unkeyed("b"));
    store.claim(1, now(), LEASE);

    OutboxStats stats = store.stats(now());
    assertThat(stats.waiting()).isEqualTo(2);
    assertThat(stats.inFlight()).isEqualTo(1);
    assertThat(stats.blocked()).isZero();
    assertThat(stats.oldestWaiting()).contains(t0);
    assertThat(store.destinationStats(now(), 10)).singleElement().satisfies(row -> {
      assertThat(row.destination()).isEqualTo("orders");
      assertThat(row.stats()).isEqualTo(stats);
    });
    assertThat(store.stats(now().plus(LEASE)).inFlight()).isZero();
    assertThat(store.destinationStats(now().plus(LEASE), 10).get(0).stats().inFlight()).isZero();
  }

  @Test
  public final void destination_stats_count_each_destination_apart_most_behind_first() {
    Instant t0 = now();
    OutboxEntry erpHead = store.enqueue(message("erp", "X")); // quarantined below
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("erp", "X")); // blocked
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("crm", "X")); // blocked: its key's quarantined head is bound for erp
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("crm", "Y")); // waiting, claimed below
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(message("crm", "Y")); // waiting behind its claimed head
    clock.advance(Duration.ofSeconds(1));
    OutboxEntry billing = store.enqueue(message("billing", "Z"));
    store.markDeadLettered(billing, "refused", "refused"); // only a quarantined entry
    clock.advance(Duration.ofSeconds(1));
    store.enqueue(unkeyed("newest")); // orders: waiting
    Map<UUID, Claim> claimed = byId(store.claim(2, now(), LEASE)); // the heads of X and Y
    store.quarantine(claimed.get(erpHead.id()), poison("bad"));

    List<DestinationStats> rows = store.destinationStats(now(), 10);

    assertThat(rows).extracting(DestinationStats::destination).containsExactly("erp", "crm", "orders", "billing");
    Map<String, OutboxStats> by = new LinkedHashMap<>();
    rows.forEach(row -> by.put(row.destination(), row.stats()));
    assertThat(by.get("erp")).isEqualTo(new OutboxStats(0, 1, 0, 1, null, t0.plusSeconds(1)));
    assertThat(by.get("crm")).isEqualTo(new OutboxStats(2, 1, 1, 0, t0.plusSeconds(3), t0.plusSeconds(2)));
    assertThat(by.get("orders")).isEqualTo(new OutboxStats(1, 0, 0, 0, t0.plusSeconds(6), null));
    assertThat(by.get("billing")).isEqualTo(new OutboxStats(0, 0, 0, 1, null, null));
    OutboxStats sum = rows.stream().map(DestinationStats::stats).reduce(OutboxStats.EMPTY, OutboxStats::plus);
    assertThat(store.stats(now())).as("the destinations add up to the whole").isEqualTo(sum);

    assertThat(store.destinationStats(now(), 2)).extracting(DestinationStats::destination)
        .containsExactly("erp", "crm");
    assertThatThrownBy(() -> store.destinationStats(now(), 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.destinationStats(now(), DestinationStats.MAX_LIMIT + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void stats_of_an_empty_outbox_are_all_zero_and_list_no_destination() {
    store.enqueue(unkeyed("gone"));
    store.markDelivered(store.claim(1, now(), LEASE), now());

    assertThat(store.stats(now())).isEqualTo(OutboxStats.EMPTY);
    assertThat(store.destinationStats(now(), 10)).isEmpty();
  }

  // ------------------------------------------------------------------------------------------ save: new versus read

  @Test
  public final void save_never_brings_back_an_entry_delivered_and_deleted_since_it_was_read() {
    OutboxEntry read = store.enqueue(message("d", "A"));
    store.markDelivered(store.claim(1, now(), LEASE), now()); // deleted on delivery

    assertThatThrownBy(() -> store.save(read.withAttempts(1, "retry it")))
        .isInstanceOfSatisfying(EntryNotFoundException.class, e -> assertThat(e.entryId()).isEqualTo(read.id()));

    assertThat(store.find(read.id())).isEmpty();
    assertThat(store.claim(10, now(), LEASE)).isEmpty();
  }

  @Test
  public final void the_first_charged_failure_is_recorded_once_postponements_leave_it_and_requeue_clears_it() {
    OutboxEntry a = store.enqueue(message("a", "A"));
    OutboxEntry b = store.enqueue(message("b", "B"));
    Instant first = now();
    Map<UUID, Claim> claims = byId(store.claim(10, now(), LEASE));
    store.markFailed(claims.get(a.id()), "own failure", now());
    store.postpone(claims.get(b.id()), "outage", now());
    assertThat(store.find(a.id()).orElseThrow().firstFailedAt()).isEqualTo(first);
    assertThat(store.find(b.id()).orElseThrow().firstFailedAt()).as("a postponement is no failure").isNull();

    clock.advance(Duration.ofMinutes(5));
    claims = byId(store.claim(10, now(), LEASE));
    store.markFailed(claims.get(a.id()), "again", now());
    store.markFailed(claims.get(b.id()), "own failure", now());
    assertThat(store.find(a.id()).orElseThrow().firstFailedAt()).as("kept by later failures").isEqualTo(first);
    assertThat(store.find(b.id()).orElseThrow().firstFailedAt()).isEqualTo(now());

    OutboxEntry parked = store.markFailed(store.enqueue(message("c", "C")), "entry face", null);
    assertThat(parked.firstFailedAt()).isEqualTo(now());
    assertThat(store.requeue(parked.id(), now())).isTrue();
    assertThat(store.find(parked.id()).orElseThrow().firstFailedAt()).as("cleared by requeue").isNull();
  }

  private static Map<UUID, Claim> byId(List<Claim> claims) {
    Map<UUID, Claim> found = new LinkedHashMap<>();
    claims.forEach(claim -> found.put(claim.id(), claim));
    return found;
  }

  @Test
  public final void save_never_moves_a_parked_or_quarantined_entry_out_of_its_state_only_requeue_and_discard_do() {
    OutboxEntry parked = store.markFailed(store.enqueue(message("p", "P")), "no retry", null);
    store.enqueue(message("q", "Q"));
    store.quarantine(store.claim(1, now(), LEASE).get(0), poison("bad"));
    OutboxEntry quarantined = store.quarantined(QuarantineQuery.first(10)).stream()
        .filter(e -> e.status() == EntryStatus.QUARANTINED).findFirst().orElseThrow();

    for (EntryStatus leaving : List.of(EntryStatus.PENDING, EntryStatus.FAILED, EntryStatus.DELIVERED)) {
      assertThatThrownBy(() -> store.save(parked.withStatus(leaving)))
          .as("parked saved as %s", leaving).isInstanceOf(EntryTransitionException.class);
      assertThatThrownBy(() -> store.save(quarantined.withStatus(leaving)))
          .as("quarantined saved as %s", leaving).isInstanceOf(EntryTransitionException.class);
    }
    assertThatThrownBy(() -> store.save(quarantined.withStatus(EntryStatus.PARKED)))
        .isInstanceOf(EntryTransitionException.class);

    assertThat(store.find(parked.id()).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
    assertThat(store.find(quarantined.id()).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(store.claim(10, now().plus(Duration.ofDays(1)), LEASE)).isEmpty();
    assertThat(store.save(quarantined.withAttempts(7, "noted")).attempts()).as("staying quarantined is a save")
        .isEqualTo(7);
    assertThat(store.save(store.find(parked.id()).orElseThrow().withStatus(EntryStatus.QUARANTINED)).status())
        .isEqualTo(EntryStatus.QUARANTINED);
  }

  @Test
  public final void save_never_brings_back_a_discarded_or_purged_entry() {
    OutboxEntry discarded = store.enqueue(unkeyed("discarded"));
    store.quarantine(store.claim(1, now(), LEASE).get(0), poison("bad"));
    OutboxEntry quarantined = store.find(discarded.id()).orElseThrow();
    assertThat(store.discard(discarded.id())).isTrue();
    OutboxStore keeping = newStore(clock, Retention.keepFor(Duration.ofMinutes(1)));
    OutboxEntry purged = keeping.enqueue(unkeyed("purged"));
    OutboxEntry delivered = keeping.markDelivered(purged, "ok");
    assertThat(keeping.purgeDelivered(now().plus(Duration.ofMinutes(1)), 10)).isEqualTo(1);

    assertThatThrownBy(() -> store.save(quarantined.withStatus(EntryStatus.PENDING)))
        .isInstanceOf(EntryNotFoundException.class);
    assertThatThrownBy(() -> keeping.save(delivered)).isInstanceOf(EntryNotFoundException.class);

    assertThat(store.find(discarded.id())).isEmpty();
    assertThat(keeping.find(purged.id())).isEmpty();
  }

  @Test
  public final void save_of_a_new_entry_whose_id_exists_raises_an_optimistic_conflict_and_changes_nothing() {
    OutboxEntry stored = store.enqueue(unkeyed("a"));
    OutboxEntry fresh = OutboxEntry.pending(stored.message(), now()).withAttempts(5, "mine");
    assertThat(fresh.version()).isZero();

    assertThatThrownBy(() -> store.save(fresh)).isInstanceOfSatisfying(OptimisticConflictException.class,
        e -> assertThat(e.expectedVersion()).isZero());
    assertThat(store.find(stored.id())).contains(stored);
  }

  @Test
  public final void two_concurrent_saves_of_one_new_id_insert_it_exactly_once() throws Exception {
    for (int round = 0; round < 5; round++) {
      OutboxEntry fresh = OutboxEntry.pending(message("d", "race" + round), now());
      List<Object> outcomes = Race.run(2, Duration.ofSeconds(60), i -> () -> {
        try {
          return store.save(fresh);
        } catch (OutboxException e) {
          return e;
        }
      });

      List<Object> inserted = outcomes.stream().filter(OutboxEntry.class::isInstance).toList();
      assertThat(inserted).as("saves that inserted").hasSize(1);
      assertThat(outcomes).as("saves refused").filteredOn(o -> !(o instanceof OutboxEntry)).singleElement()
          .isInstanceOf(OptimisticConflictException.class);
      assertThat(store.find(fresh.id())).contains((OutboxEntry) inserted.get(0));
    }
    assertThat(store.stats(now()).pending()).isEqualTo(5);
  }

  // ------------------------------------------------------------------------------------------ parked ("failed")

  @Test
  public final void mark_failed_without_a_retry_time_parks_the_entry_blocking_its_key_until_an_operator_acts() {
    OutboxEntry head = store.enqueue(message("d", "A"));
    UUID next = store.enqueue(message("d", "A")).id();
    UUID other = store.enqueue(message("d", "B")).id();

    OutboxEntry parked = store.markFailed(head, "consumer rejected it", null);

    assertThat(parked.status()).isEqualTo(EntryStatus.PARKED);
    assertThat(parked.attempts()).isEqualTo(1);
    assertThat(parked.lastError()).isEqualTo("consumer rejected it");
    assertThat(store.find(head.id())).contains(parked);
    Instant muchLater = now().plus(Duration.ofDays(365));
    assertThat(store.findRetryReady(muchLater, 10)).isEmpty();
    assertThat(store.findPending(10)).extracting(OutboxEntry::id).containsExactly(next, other);
    assertThat(ids(store.claim(10, muchLater, LEASE))).containsExactly(other);
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id).containsExactly(head.id());
    OutboxStats stats = store.stats(muchLater);
    assertThat(stats.quarantined()).isEqualTo(1);
    assertThat(stats.pending()).isEqualTo(2);

    assertThat(store.requeue(head.id(), muchLater)).isTrue();
    OutboxEntry requeued = store.find(head.id()).orElseThrow();
    assertThat(requeued.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(requeued.attempts()).isZero();
    assertThat(ids(store.claim(10, muchLater, LEASE))).containsExactly(head.id());
  }

  @Test
  public final void a_parked_entry_can_be_dead_lettered_or_discarded() {
    OutboxEntry first = store.enqueue(message("d", "A"));
    OutboxEntry second = store.enqueue(message("d", "B"));
    OutboxEntry parkedFirst = store.markFailed(first, "e1", null);
    store.markFailed(second, "e2", null);

    OutboxEntry dead = store.markDeadLettered(parkedFirst, "e1", "given up by the host");
    assertThat(dead.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(store.discard(second.id())).isTrue();

    assertThat(store.find(second.id())).isEmpty();
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id).containsExactly(first.id());
  }

  // ------------------------------------------------------------------------------------------ checked transitions

  @Test
  public final void the_entry_face_never_moves_an_entry_out_of_quarantine() {
    store.enqueue(unkeyed("a"));
    store.quarantine(store.claim(1, now(), LEASE).get(0), poison("bad"));
    OutboxEntry quarantined = store.quarantined(QuarantineQuery.first(1)).get(0);

    assertRefused(() -> store.markFailed(quarantined, "retry?", now()), quarantined, "markFailed");
    assertRefused(() -> store.markFailed(quarantined, "retry?", null), quarantined, "markFailed");
    assertRefused(() -> store.markDelivered(quarantined, "sent by hand"), quarantined, "markDelivered");
    assertRefused(() -> store.markDeadLettered(quarantined, "again", null), quarantined, "markDeadLettered");

    assertThat(store.find(quarantined.id())).contains(quarantined);
  }

  @Test
  public final void the_entry_face_never_moves_a_parked_entry_except_to_dead_lettered() {
    OutboxEntry parked = store.markFailed(store.enqueue(unkeyed("a")), "e", null);

    assertRefused(() -> store.markFailed(parked, "again", now()), parked, "markFailed");
    assertRefused(() -> store.markDelivered(parked, null), parked, "markDelivered");

    assertThat(store.find(parked.id())).contains(parked);
  }

  @Test
  public final void a_delivered_entry_kept_for_retention_cannot_be_failed_dead_lettered_or_saved_back() {
    OutboxStore keeping = newStore(clock, Retention.keepFor(Duration.ofHours(1)));
    OutboxEntry delivered = keeping.markDelivered(keeping.enqueue(message("d", "A")), "offset 1");

    assertRefused(() -> keeping.markFailed(delivered, "late failure", now()), delivered, "markFailed");
    assertRefused(() -> keeping.markDelivered(delivered, "twice"), delivered, "markDelivered");
    assertRefused(() -> keeping.markDeadLettered(delivered, "e", null), delivered, "markDeadLettered");
    assertThatThrownBy(() -> keeping.save(delivered.withStatus(EntryStatus.PENDING)))
        .isInstanceOfSatisfying(EntryTransitionException.class,
            e -> assertThat(e.from()).isEqualTo(EntryStatus.DELIVERED));

    assertThat(keeping.find(delivered.id())).contains(delivered);
    assertThat(keeping.claim(10, now(), LEASE)).isEmpty();
  }

  private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, OutboxEntry entry,
      String operation) {
    assertThatThrownBy(call).isInstanceOfSatisfying(EntryTransitionException.class, e -> {
      assertThat(e.entryId()).isEqualTo(entry.id());
      assertThat(e.from()).isEqualTo(entry.status());
      assertThat(e.operation()).isEqualTo(operation);
    });
  }

  // ------------------------------------------------------------------------------------------ results and reasons

  @Test
  public final void mark_delivered_under_keep_for_keeps_the_result_readable() {
    OutboxStore keeping = newStore(clock, Retention.keepFor(Duration.ofHours(1)));
    OutboxEntry read = keeping.enqueue(unkeyed("a"));

    OutboxEntry delivered = keeping.markDelivered(read, "partition 3 offset 42");

    OutboxEntry found = keeping.find(read.id()).orElseThrow();
    assertThat(found).isEqualTo(delivered);
    assertThat(found.status()).isEqualTo(EntryStatus.DELIVERED);
    assertThat(found.deliveryResult()).isEqualTo("partition 3 offset 42");
    assertThat(found.deliveredAt()).isEqualTo(now());
  }

  @Test
  public final void mark_dead_lettered_without_a_reason_uses_the_error_and_counts_no_attempt() {
    OutboxEntry read = store.enqueue(unkeyed("a"));

    OutboxEntry dead = store.markDeadLettered(read, "422 Unprocessable Entity", null);

    assertThat(dead.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(dead.quarantineReason()).isEqualTo("422 Unprocessable Entity");
    assertThat(dead.lastError()).isEqualTo("422 Unprocessable Entity");
    assertThat(dead.quarantineKind()).isEqualTo(QuarantineKind.DEAD_LETTERED);
    assertThat(dead.attempts()).isEqualTo(read.attempts());
    assertThat(store.find(read.id())).contains(dead);
  }

  @Test
  public final void quarantine_reasons_carry_a_kind_readable_without_parsing_text() {
    UUID permanent = store.enqueue(unkeyed("p")).id();
    UUID exhausted = store.enqueue(unkeyed("x")).id();
    UUID byOperator = store.enqueue(unkeyed("o")).id();
    List<Claim> claims = store.claim(2, now(), LEASE);
    store.quarantine(claims.get(0), QuarantineReason.permanentFailure("404 no such topic"));
    store.quarantine(claims.get(1), QuarantineReason.retriesExhausted("retry budget of 1h spent"));
    store.save(store.find(byOperator).orElseThrow().withStatus(EntryStatus.QUARANTINED));

    assertThat(store.find(permanent).orElseThrow().quarantine())
        .contains(new QuarantineReason(QuarantineKind.PERMANENT_FAILURE, "404 no such topic"));
    assertThat(store.find(exhausted).orElseThrow().quarantine())
        .contains(new QuarantineReason(QuarantineKind.RETRIES_EXHAUSTED, "retry budget of 1h spent"));
    assertThat(store.find(byOperator).orElseThrow().quarantineKind()).isEqualTo(QuarantineKind.OPERATOR);
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::quarantineKind)
        .containsExactly(QuarantineKind.PERMANENT_FAILURE, QuarantineKind.RETRIES_EXHAUSTED, QuarantineKind.OPERATOR);

    store.requeue(permanent, now());
    assertThat(store.find(permanent).orElseThrow().quarantine()).isEmpty();
  }

  // ------------------------------------------------------------------------------------------ seed edge cases

  @Test
  public final void find_pending_and_find_retry_ready_return_nothing_for_zero_and_refuse_a_negative_max() {
    store.enqueue(unkeyed("a"));
    store.markFailed(store.enqueue(unkeyed("b")), "e", now());

    assertThat(store.findPending(0)).isEmpty();
    assertThat(store.findRetryReady(now(), 0)).isEmpty();
    assertThatThrownBy(() -> store.findPending(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.findRetryReady(now(), -1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(store.findPending(1)).hasSize(1);
    assertThat(store.findRetryReady(now(), 1)).hasSize(1);
  }

  // ------------------------------------------------------------------------------------------ bulk operator actions

  @Test
  public final void requeue_all_and_discard_all_act_on_the_selected_entries_only() {
    UUID keyA = quarantineNew(message("orders", "A"), QuarantineReason.retriesExhausted("broker down 100%"));
    UUID keyB = quarantineNew(message("orders", "B"), QuarantineReason.permanentFailure("schema rejected"));
    UUID invoices = quarantineNew(message("invoices", "C"), QuarantineReason.permanentFailure("404 not found"));
    UUID parked = store.markFailed(store.enqueue(message("invoices", "D")), "host gave up on it", null).id();
    UUID healthy = store.enqueue(message("orders", "E")).id();

    assertThat(store.requeueAll(QuarantineSelector.ofKey("A"), now(), 100)).isEqualTo(1);
    assertThat(store.find(keyA).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.requeueAll(QuarantineSelector.ofKind(QuarantineKind.PERMANENT_FAILURE)
        .withKind(QuarantineKind.RETRIES_EXHAUSTED), now(), 100)).isZero();
    assertThat(store.requeueAll(QuarantineSelector.reasonContaining("gave up"), now(), 100)).isEqualTo(1);
    assertThat(store.find(parked).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.requeueAll(QuarantineSelector.reasonContaining("100%"), now(), 100)).isZero();
    assertThat(store.discardAll(QuarantineSelector.ofDestination("invoices"), 100)).isEqualTo(1);
    assertThat(store.find(invoices)).isEmpty();
    assertThat(store.discardAll(new QuarantineSelector("B", "orders", "schema", QuarantineKind.PERMANENT_FAILURE),
        100)).isEqualTo(1);
    assertThat(store.find(keyB)).isEmpty();

    assertThat(store.find(healthy).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.quarantined(QuarantineQuery.first(10))).isEmpty();
  }

  @Test
  public final void bulk_operator_actions_work_in_bounded_batches_oldest_first() {
    List<UUID> quarantined = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      quarantined.add(quarantineNew(message("d", "K" + i), QuarantineReason.retriesExhausted("outage")));
    }

    assertThat(store.requeueAll(QuarantineSelector.all(), now(), 2)).isEqualTo(2);
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id)
        .containsExactlyElementsOf(quarantined.subList(2, 5));
    assertThat(store.requeueAll(QuarantineSelector.all(), now(), 2)).isEqualTo(2);
    assertThat(store.discardAll(QuarantineSelector.all(), 2)).isEqualTo(1);
    assertThat(store.discardAll(QuarantineSelector.all(), 2)).isZero();
    assertThat(store.findPending(10)).extracting(OutboxEntry::id).containsExactlyElementsOf(quarantined.subList(0, 4));
    assertThatThrownBy(() -> store.requeueAll(QuarantineSelector.all(), now(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.discardAll(QuarantineSelector.all(), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void a_bulk_requeue_larger_than_one_statement_requeues_everything_it_selected() {
    for (int i = 0; i < 603; i++) {
      store.enqueue(unkeyed("m" + i));
    }
    for (int i = 0; i < 2; i++) {
      for (Claim claim : store.claim(500, now(), LEASE)) {
        store.quarantine(claim, QuarantineReason.retriesExhausted("outage"));
      }
    }

    assertThat(store.requeueAll(QuarantineSelector.all(), now(), 600)).isEqualTo(600);
    assertThat(store.stats(now()).quarantined()).isEqualTo(3);
    assertThat(store.discardAll(QuarantineSelector.all(), 10_000)).isEqualTo(3);
  }

  // ------------------------------------------------------------------------------------------ waiting entries and pauses

  @Test
  public final void park_waiting_parks_the_selected_waiting_entries_oldest_first_but_never_a_claimed_one() {
    UUID a1 = store.enqueue(message("webhooks", "A")).id();
    UUID b1 = store.enqueue(message("webhooks", "B")).id();
    UUID a2 = store.enqueue(message("webhooks", "A")).id();
    UUID other = store.enqueue(message("orders", "C")).id();
    UUID failed = store.markFailed(store.enqueue(message("webhooks", "D")), "503", now()).id();
    List<Claim> claimed = store.claim(10, now(), LEASE); // the heads of A, B, C and D
    UUID claimedB = claimed.stream().filter(c -> c.id().equals(b1)).findFirst().orElseThrow().id();
    store.release(claimed.stream().filter(c -> !c.id().equals(claimedB)).toList());

    assertThat(store.countWaiting(WaitingSelector.ofDestination("webhooks"), now())).isEqualTo(3);
    assertThat(store.parkWaiting(WaitingSelector.ofDestination("webhooks"), now(), 2)).isEqualTo(2);
    assertThat(store.find(a1).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
    assertThat(store.find(a2).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
    assertThat(store.parkWaiting(WaitingSelector.ofDestination("webhooks"), now(), 2)).isEqualTo(1);
    assertThat(store.find(failed).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
    assertThat(store.find(failed).orElseThrow().attempts()).isEqualTo(1);
    assertThat(store.find(failed).orElseThrow().lastError()).isEqualTo("503");
    assertThat(store.find(b1).orElseThrow().status()).isEqualTo(EntryStatus.PENDING); // claimed: untouched
    assertThat(store.find(other).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.countWaiting(WaitingSelector.ofDestination("webhooks"), now())).isZero();

    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id)
        .containsExactly(a1, a2, failed);
    assertThat(store.claim(10, now().plus(LEASE).plusSeconds(1), LEASE)).extracting(Claim::id)
        .containsExactlyInAnyOrder(b1, other); // B's claim expired; A and D are blocked by their parked heads
    assertThatThrownBy(() -> store.parkWaiting(WaitingSelector.ofKey("A"), now(), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void a_parked_key_keeps_its_order_and_flows_again_in_write_order_once_requeued() {
    List<UUID> key = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      key.add(store.enqueue(message("d", "K")).id());
    }
    UUID otherKey = store.enqueue(message("d", "L")).id();

    assertThat(store.countWaiting(WaitingSelector.ofKey("K"), now())).isEqualTo(3);
    assertThat(store.parkWaiting(WaitingSelector.ofKey("K"), now(), 100)).isEqualTo(3);
    assertThat(store.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(otherKey);
    assertThat(store.requeueAll(QuarantineSelector.ofKey("K"), now(), 100)).isEqualTo(3);

    List<UUID> handedOut = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<Claim> claims = store.claim(10, now(), LEASE);
      assertThat(claims).hasSize(1);
      handedOut.add(claims.get(0).id());
      store.markDelivered(claims, now());
    }
    assertThat(handedOut).containsExactlyElementsOf(key);
  }

  @Test
  public final void discard_waiting_deletes_the_selected_waiting_entries_in_bounded_batches_but_never_a_claimed_one() {
    UUID quarantined = quarantineNew(message("d", "Q"), poison("bad"));
    List<UUID> key = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      key.add(store.enqueue(message("d", "K")).id());
    }
    UUID sameKeyOtherDestination = store.enqueue(message("e", "K")).id();
    Claim head = store.claim(10, now(), LEASE).stream().filter(c -> c.id().equals(key.get(0))).findFirst()
        .orElseThrow();

    WaitingSelector selector = new WaitingSelector("K", "d");
    assertThat(store.countWaiting(selector, now())).isEqualTo(3);
    assertThat(store.discardWaiting(selector, now(), 2)).isEqualTo(2);
    assertThat(store.find(key.get(1))).isEmpty();
    assertThat(store.find(key.get(2))).isEmpty();
    assertThat(store.discardWaiting(selector, now(), 2)).isEqualTo(1);
    assertThat(store.discardWaiting(selector, now(), 2)).isZero();
    assertThat(store.find(key.get(0))).isPresent(); // under its claim, which still completes
    assertThat(store.markDelivered(List.of(head), now())).isEmpty();
    assertThat(store.find(sameKeyOtherDestination)).isPresent();
    assertThat(store.find(quarantined).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(store.claim(10, now(), LEASE)).extracting(Claim::id).containsExactly(sameKeyOtherDestination);
    assertThatThrownBy(() -> store.discardWaiting(selector, now(), 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void an_expired_claim_does_not_protect_an_entry_from_park_or_discard() {
    UUID id = store.enqueue(message("d", "K")).id();
    Claim claim = store.claim(1, now(), LEASE).get(0);
    Instant later = now().plus(LEASE).plusSeconds(1);

    assertThat(store.countWaiting(WaitingSelector.ofKey("K"), now())).isZero();
    assertThat(store.countWaiting(WaitingSelector.ofKey("K"), later)).isEqualTo(1);
    if (!claimChangesTheEntry()) {
      return; // claims held outside the row (leased batches): the rest is checked where a claim writes the row
    }
    assertThat(store.parkWaiting(WaitingSelector.ofKey("K"), later, 10)).isEqualTo(1);
    assertThat(store.find(id).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
    assertThat(store.markFailed(claim, "late", later)).isFalse(); // parking cancelled the stale claim
  }

  @Test
  public final void a_waiting_selector_needs_a_destination_or_a_key() {
    assertThatThrownBy(() -> new WaitingSelector(null, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WaitingSelector.ofKey("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WaitingSelector.ofDestination("")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void a_destination_paused_by_an_operator_is_listed_until_it_is_resumed() {
    assertThat(store.operatorPauses()).isEmpty();
    Instant pausedAt = now();

    assertThat(store.pauseDestination("webhooks", "alice", "endpoint migrating", pausedAt)).isTrue();
    clock.advance(Duration.ofMinutes(1));
    assertThat(store.pauseDestination("webhooks", "bob", "again", now())).isFalse();
    assertThat(store.pauseDestination("audit", "bob", "", now())).isTrue();
    assertThat(store.operatorPauses()).containsExactly(
        new OperatorPause("audit", now(), "bob", ""),
        new OperatorPause("webhooks", pausedAt, "alice", "endpoint migrating"));

    assertThat(store.resumeDestination("webhooks")).isTrue();
    assertThat(store.resumeDestination("webhooks")).isFalse();
    assertThat(store.operatorPauses()).extracting(OperatorPause::destination).containsExactly("audit");
    assertThatThrownBy(() -> store.pauseDestination(" ", "alice", "", now()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.pauseDestination("webhooks", "", "", now()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void a_pauses_who_and_why_are_truncated_to_what_the_store_keeps() {
    String longReason = "r".repeat(OperatorPause.MAX_REASON_LENGTH + 10);
    String longBy = "b".repeat(OperatorPause.MAX_BY_LENGTH + 10);

    assertThat(store.pauseDestination("d", longBy, longReason, now())).isTrue();
    OperatorPause pause = store.operatorPauses().get(0);
    assertThat(pause.reason()).hasSize(OperatorPause.MAX_REASON_LENGTH);
    assertThat(pause.pausedBy()).hasSize(OperatorPause.MAX_BY_LENGTH);
  }

  // ------------------------------------------------------------------------------------------ groups and the audit log

  /** Quarantines one new entry of its own key for a destination with a reason; returns its id. */
  private UUID quarantined(String destination, QuarantineReason reason) {
    return quarantineNew(message(destination, "G-" + UUID.randomUUID()), reason);
  }

  @Test
  public final void quarantine_groups_gather_the_entries_that_failed_alike_whatever_numbers_and_ids_their_reasons_hold() {
    UUID first = quarantined("erp", QuarantineReason.retriesExhausted("gave up after 3 attempts; last error:"
        + " HTTP 503 from https://erp.example/orders/17 after 1234 ms (request 0190f5a2-7c1e-7d40-8a9b-2b8e1f0c9d3e)"));
    UUID crm = quarantined("crm", QuarantineReason.retriesExhausted("gave up after 3 attempts; last error:"
        + " HTTP 503 from https://erp.example/orders/17 after 1234 ms (request 0190f5a2-7c1e-7d40-8a9b-2b8e1f0c9d3e)"));
    UUID second = quarantined("erp", QuarantineReason.retriesExhausted("gave up after 5 attempts; last error:"
        + " HTTP 503 from https://erp.example/orders/18 after 980 ms (request 0190f5a3-0000-7d40-8a9b-2b8e1f0c9d3f)"));
    UUID rejected = quarantined("erp", QuarantineReason.permanentFailure("HTTP 400 from https://erp.example/orders/19"));
    UUID parked = store.markFailed(store.enqueue(message("erp", "P")), "gave up after 3 attempts; last error:"
        + " HTTP 503 from https://erp.example/orders/20 after 17 ms (request 0190f5a4-1111-7d40-8a9b-2b8e1f0c9d40)",
        null).id();
    UUID third = quarantined("erp", QuarantineReason.retriesExhausted("gave up after 12 attempts; last error:"
        + " HTTP 503 from https://erp.example/orders/21 after 1,250.5 ms (request 0190F5A5-2222-7D40-8A9B-2B8E1F0C9D41)"));

    QuarantineGroups found = store.quarantineGroups(100);

    assertThat(found.total()).isEqualTo(6);
    assertThat(found.grouped()).isEqualTo(6);
    assertThat(found.complete()).isTrue();
    assertThat(found.groups()).as("largest first, then the one with the oldest entry")
        .extracting(QuarantineGroup::ids)
        .containsExactly(List.of(first, second, third), List.of(crm), List.of(rejected), List.of(parked));
    QuarantineGroup outage = found.groups().get(0);
    assertThat(outage.destination()).isEqualTo("erp");
    assertThat(outage.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(outage.kind()).isEqualTo(QuarantineKind.RETRIES_EXHAUSTED);
    assertThat(outage.count()).isEqualTo(3);
    assertThat(outage.pattern())
        .isEqualTo("gave up after # attempt; last error: HTTP # from https://erp.example/orders/# after <duration>"
            + " (request <id>)");
    assertThat(outage.example()).as("the oldest entry's reason, as written").contains("orders/17 after 1234 ms");
    QuarantineGroup parkedGroup = found.groups().get(3);
    assertThat(parkedGroup.status()).isEqualTo(EntryStatus.PARKED);
    assertThat(parkedGroup.kind()).isNull();
    assertThat(parkedGroup.kindLabel()).isEqualTo("PARKED");
    assertThat(parkedGroup.pattern()).as("a parked entry groups by its last error").isEqualTo(outage.pattern());
    assertThat(found.find(outage.id())).contains(outage);
  }

  @Test
  public final void quarantine_groups_read_a_bounded_number_of_the_oldest_entries_and_say_how_many_they_left_out() {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      written.add(quarantined("erp", QuarantineReason.retriesExhausted("timed out after " + (i + 1) + " s")));
    }

    QuarantineGroups found = store.quarantineGroups(3);

    assertThat(found.total()).isEqualTo(5);
    assertThat(found.grouped()).isEqualTo(3);
    assertThat(found.complete()).isFalse();
    assertThat(found.groups()).singleElement().satisfies(group ->
        assertThat(group.ids()).containsExactlyElementsOf(written.subList(0, 3)));
    assertThatThrownBy(() -> store.quarantineGroups(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.quarantineGroups(QuarantineGroups.MAX_GROUPED + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void a_group_is_listed_page_by_page_counted_and_acted_on_exactly_as_far_as_the_operator_saw_it() {
    QuarantineReason outage = QuarantineReason.retriesExhausted("HTTP 503 from erp after 1200 ms");
    UUID a = quarantined("erp", outage);
    UUID other = quarantined("erp", QuarantineReason.permanentFailure("HTTP 400 from erp"));
    UUID b = quarantined("erp", QuarantineReason.retriesExhausted("HTTP 503 from erp after 90 ms"));
    UUID c = quarantined("erp", QuarantineReason.retriesExhausted("HTTP 503 from erp after 7 ms"));
    QuarantineGroup seen = store.quarantineGroups(100).groups().get(0);
    QuarantineSelector group = QuarantineSelector.ofGroup(seen);

    List<OutboxEntry> page = store.quarantined(group, QuarantineQuery.first(2));
    assertThat(page).extracting(OutboxEntry::id).containsExactly(a, b);
    assertThat(store.quarantined(group, QuarantineQuery.first(2).after(page.get(1).sequence())))
        .extracting(OutboxEntry::id).containsExactly(c);
    assertThat(store.countQuarantined(group)).isEqualTo(3);

    // after the operator looked: another operator requeues one entry, and a new one fails the same way
    assertThat(store.requeue(b, now())).isTrue();
    deliverEverythingClaimable(now());
    UUID newcomer = quarantined("erp", QuarantineReason.retriesExhausted("HTTP 503 from erp after 31 ms"));
    assertThat(store.countQuarantined(group)).as("the group now").isEqualTo(3);

    assertThat(store.requeueAll(group.withIds(seen.ids()), now(), 100))
        .as("only the entries the operator saw that are still in the group").isEqualTo(2);
    assertThat(store.find(a).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.find(c).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.find(newcomer).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(store.find(other).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(store.countQuarantined(group)).isEqualTo(1);
    assertThat(store.discardAll(group.withIds(seen.ids()), 100)).isZero();
    assertThat(store.discardAll(group, 100)).isEqualTo(1);
    assertThat(store.find(newcomer)).isEmpty();
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id).containsExactly(other);
  }

  @Test
  public final void count_quarantined_counts_what_a_bulk_action_changes() {
    quarantined("erp", QuarantineReason.retriesExhausted("HTTP 503"));
    UUID rejected = quarantined("erp", QuarantineReason.permanentFailure("HTTP 400"));
    quarantined("crm", QuarantineReason.retriesExhausted("HTTP 503"));
    store.markFailed(store.enqueue(message("erp", "P")), "HTTP 503", null);

    assertThat(store.countQuarantined(QuarantineSelector.all())).isEqualTo(4);
    assertThat(store.countQuarantined(QuarantineSelector.ofDestination("erp"))).isEqualTo(3);
    assertThat(store.countQuarantined(QuarantineSelector.ofKind(QuarantineKind.RETRIES_EXHAUSTED))).isEqualTo(2);
    assertThat(store.countQuarantined(QuarantineSelector.reasonContaining("503"))).isEqualTo(3);
    assertThat(store.countQuarantined(QuarantineSelector.ofIds(List.of(rejected, UUID.randomUUID())))).isEqualTo(1);
    assertThat(store.countQuarantined(QuarantineSelector.ofDestination("erp").withKind(QuarantineKind.PERMANENT_FAILURE)))
        .isEqualTo(1);
    assertThat(store.discardAll(QuarantineSelector.ofDestination("erp"), 100)).isEqualTo(3);
    assertThat(store.countQuarantined(QuarantineSelector.ofDestination("erp"))).isZero();
  }

  @Test
  public final void a_group_larger_than_one_statement_is_counted_and_changed_by_its_ids() {
    for (int i = 0; i < 603; i++) {
      store.enqueue(unkeyed("m" + i));
    }
    for (int i = 0; i < 2; i++) {
      for (Claim claim : store.claim(500, now(), LEASE)) {
        store.quarantine(claim, QuarantineReason.retriesExhausted("HTTP 503 after " + i + " ms"));
      }
    }
    QuarantineGroup group = store.quarantineGroups(QuarantineGroups.MAX_GROUPED).groups().get(0);
    assertThat(group.count()).isEqualTo(603);
    QuarantineSelector seen = QuarantineSelector.ofGroup(group).withIds(group.ids().subList(0, 550));

    assertThat(store.countQuarantined(seen)).isEqualTo(550);
    assertThat(store.countQuarantined(QuarantineSelector.ofIds(group.ids().subList(0, 550)))).isEqualTo(550);
    assertThat(store.discardAll(seen, 10_000)).isEqualTo(550);
    assertThat(store.quarantined(QuarantineQuery.first(100))).extracting(OutboxEntry::id)
        .containsExactlyElementsOf(group.ids().subList(550, 603));
  }

  @Test
  public final void an_unreadable_row_is_grouped_under_its_placeholders_and_its_group_can_be_discarded() {
    UUID bad = plain(PlainSqlRow.of(" ", "A", "bad", "{}"));
    deliverEverythingClaimable(now());
    QuarantineGroup group = store.quarantineGroups(100).groups().get(0);
    assertThat(group.kind()).isEqualTo(QuarantineKind.UNREADABLE);
    assertThat(group.ids()).containsExactly(bad);
    assertThat(store.quarantined(QuarantineSelector.ofGroup(group), QuarantineQuery.first(10)))
        .extracting(OutboxEntry::id).containsExactly(bad);
    assertThat(store.countQuarantined(QuarantineSelector.ofGroup(group))).isEqualTo(1);

    assertThat(store.discardAll(QuarantineSelector.ofGroup(group).withIds(group.ids()), 10)).isEqualTo(1);
    assertThat(store.find(bad)).isEmpty();
  }

  @Test
  public final void operator_actions_are_kept_and_read_newest_first() {
    Instant at = now();
    store.recordOperatorAction(new OperatorAction(at.minusSeconds(60), "cli", OperatorAction.PAUSE,
        "destination 'erp'", 0, "by alice: maintenance"));
    store.recordOperatorAction(new OperatorAction(at, "ops-token", OperatorAction.REQUEUE,
        "group 'erp / RETRIES_EXHAUSTED / HTTP # from erp'", 55, "confirmed 55"));
    store.recordOperatorAction(new OperatorAction(at, "actuator", OperatorAction.DISCARD, "entry " + UUID.randomUUID(),
        1, ""));

    List<OperatorAction> latest = store.operatorActions(2);

    assertThat(latest).extracting(OperatorAction::actor).as("newest first; in one instant, the last recorded first")
        .containsExactly("actuator", "ops-token");
    assertThat(latest.get(1)).isEqualTo(new OperatorAction(at, "ops-token", "requeue",
        "group 'erp / RETRIES_EXHAUSTED / HTTP # from erp'", 55, "confirmed 55"));
    assertThat(store.operatorActions(10)).hasSize(3).last().satisfies(first -> {
      assertThat(first.at()).isEqualTo(at.minusSeconds(60));
      assertThat(first.detail()).isEqualTo("by alice: maintenance");
    });
    assertThatThrownBy(() -> store.operatorActions(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void an_operator_actions_texts_are_cut_to_what_the_store_keeps() {
    store.recordOperatorAction(OperatorAction.of(now(), "a".repeat(300), "requeue", "t".repeat(2500), 3,
        "d".repeat(2500)));

    OperatorAction kept = store.operatorActions(1).get(0);

    assertThat(kept.actor()).hasSize(OperatorAction.MAX_ACTOR_LENGTH).endsWith("…");
    assertThat(kept.target()).hasSize(OperatorAction.MAX_TEXT_LENGTH).endsWith("…");
    assertThat(kept.detail()).hasSize(OperatorAction.MAX_TEXT_LENGTH);
    assertThat(kept.entries()).isEqualTo(3);
    assertThatThrownBy(() -> new OperatorAction(now(), "cli", "Requeue!", "x", 1, ""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ------------------------------------------------------------------------------------------ rows the store cannot read

  /** Writes a row by plain SQL; skips the test for a store that cannot hold a row it cannot read. */
  private UUID plain(PlainSqlRow row) {
    org.junit.jupiter.api.Assumptions.assumeTrue(insertWithPlainSql(row),
        "this store keeps typed values only and cannot hold a row it cannot read");
    return row.id();
  }

  /** Claims and delivers until a claim comes back empty; returns the ids delivered, in claim order. */
  private List<UUID> deliverEverythingClaimable(Instant at) {
    List<UUID> delivered = new ArrayList<>();
    for (int round = 0; round < 1000; round++) {
      List<Claim> claims = store.claim(7, at, LEASE);
      if (claims.isEmpty()) {
        return delivered;
      }
      delivered.addAll(ids(claims));
      assertThat(store.markDelivered(claims, at)).isEmpty();
    }
    throw new AssertionError("claims never ran dry");
  }

  private void assertQuarantinedAsUnreadable(UUID id, String... reasonParts) {
    OutboxEntry entry = store.find(id).orElseThrow();
    assertThat(entry.status()).as("status of %s", id).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(entry.quarantineKind()).as("kind of %s", id).isEqualTo(QuarantineKind.UNREADABLE);
    assertThat(entry.quarantineReason()).as("reason of %s", id).startsWith("unreadable row: ").contains(reasonParts);
    assertThat(entry.attempts()).as("attempts of %s: nothing was sent", id).isZero();
  }

  @Test
  public final void rows_the_store_cannot_read_never_stop_a_claim_and_are_quarantined_naming_the_column() {
    Set<UUID> readable = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      readable.add(store.enqueue(message("orders", "K" + (i % 3))).id());
      readable.add(store.enqueue(unkeyed("u" + i)).id());
    }
    UUID listHeaders = plain(PlainSqlRow.of("orders", "X1", "x1", "[1,2,3]"));
    UUID numberHeader = plain(PlainSqlRow.of("orders", null, "x2", "{\"n\":1}"));
    UUID blankKey = plain(PlainSqlRow.of("orders", "", "x3", "{}"));
    UUID blankDestination = plain(PlainSqlRow.of(" ", null, "x4", "{}"));
    UUID blankHeaderName = plain(PlainSqlRow.of("orders", "X2", "x5", "{\"\":\"v\"}"));
    for (int i = 0; i < 6; i++) {
      readable.add(store.enqueue(message("orders", "K" + (i % 3))).id());
      readable.add(store.enqueue(unkeyed("v" + i)).id());
    }
    readable.add(plain(PlainSqlRow.of("orders", "K1", "k1", "{\"traceparent\":\"00-1\"}")));

    List<UUID> delivered = deliverEverythingClaimable(now());

    assertThat(delivered).containsExactlyInAnyOrderElementsOf(readable);
    assertQuarantinedAsUnreadable(listHeaders, "column headers is not a JSON object of strings: [1,2,3]");
    assertQuarantinedAsUnreadable(numberHeader, "column headers is not a JSON object of strings: {\"n\":1}");
    assertQuarantinedAsUnreadable(blankKey, "column ordering_key is blank");
    assertQuarantinedAsUnreadable(blankDestination, "column destination is blank");
    assertQuarantinedAsUnreadable(blankHeaderName, "column headers has a blank header name");
    assertThat(store.quarantined(QuarantineQuery.first(100))).extracting(OutboxEntry::id)
        .containsExactly(listHeaders, numberHeader, blankKey, blankDestination, blankHeaderName);
    assertThat(store.quarantined(QuarantineQuery.first(100))).allSatisfy(entry -> {
      assertThat(entry.quarantineKind()).isEqualTo(QuarantineKind.UNREADABLE);
      assertThat(entry.quarantineReason()).doesNotContain(
          new String(entry.message().payload(), java.nio.charset.StandardCharsets.UTF_8));
    });
    assertThat(store.stats(now()).quarantined()).isEqualTo(5);
    assertThat(store.stats(now()).pending()).isZero();
  }

  @Test
  public final void a_row_the_store_cannot_read_blocks_its_own_readable_key_and_nothing_else() {
    UUID bad = plain(PlainSqlRow.of("orders", "A", "a1", "[1,2,3]"));
    UUID a2 = store.enqueue(message("orders", "A")).id();
    UUID b1 = store.enqueue(message("orders", "B")).id();
    UUID u1 = store.enqueue(unkeyed("u1")).id();

    List<Claim> claims = store.claim(10, now(), LEASE);
    assertThat(ids(claims)).containsExactly(b1, u1);
    assertThat(store.markDelivered(claims, now())).isEmpty();
    assertThat(store.claim(10, now().plus(LEASE), LEASE)).as("A stays blocked by its quarantined head").isEmpty();
    OutboxEntry quarantined = store.find(bad).orElseThrow();
    assertThat(quarantined.message().orderingKey()).contains("A");
    assertThat(quarantined.quarantineKind()).isEqualTo(QuarantineKind.UNREADABLE);

    assertThat(store.discard(bad)).isTrue();
    assertThat(ids(store.claim(10, now().plus(LEASE), LEASE))).containsExactly(a2);
  }

  @Test
  public final void a_row_the_store_cannot_read_ends_a_run_and_what_was_behind_it_is_not_held() {
    UUID head = store.enqueue(message("orders", "A")).id();
    UUID bad = plain(PlainSqlRow.of("orders", "A", "a2", "[1,2,3]"));
    UUID third = store.enqueue(message("orders", "A")).id();

    List<Claim> claims = store.claim(10, now(), LEASE, 5);

    assertThat(ids(claims)).containsExactly(head);
    assertQuarantinedAsUnreadable(bad, "headers");
    assertThat(store.markDelivered(claims, now())).isEmpty();
    assertThat(store.discard(bad)).isTrue();
    assertThat(ids(store.claim(10, now(), LEASE, 5))).as("the entry behind the unreadable row was handed back")
        .containsExactly(third);
  }

  @Test
  public final void a_requeued_row_that_is_still_unreadable_is_quarantined_again_by_the_next_claim() {
    UUID bad = plain(PlainSqlRow.of("orders", "A", "a1", "{\"n\":1}"));
    UUID a2 = store.enqueue(message("orders", "A")).id();
    assertThat(store.claim(10, now(), LEASE)).isEmpty();

    assertThat(store.requeue(bad, now())).isTrue();
    assertThat(store.find(bad).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.claim(10, now(), LEASE)).isEmpty();
    assertQuarantinedAsUnreadable(bad, "column headers");

    assertThat(store.requeueAll(QuarantineSelector.ofKind(QuarantineKind.UNREADABLE), now(), 10)).isEqualTo(1);
    assertThat(store.claim(10, now(), LEASE)).isEmpty();
    assertThat(store.discardAll(QuarantineSelector.ofKind(QuarantineKind.UNREADABLE), 10)).isEqualTo(1);
    assertThat(store.find(bad)).isEmpty();
    assertThat(ids(store.claim(10, now(), LEASE))).containsExactly(a2);
  }

  @Test
  public final void an_unreadable_row_with_a_blank_key_blocks_no_readable_entry() {
    UUID blankKey = plain(PlainSqlRow.of("orders", " ", "x", "{}"));
    UUID keyed = store.enqueue(message("orders", "A")).id();
    UUID unkeyed = store.enqueue(unkeyed("u")).id();

    assertThat(ids(store.claim(10, now(), LEASE))).containsExactly(keyed, unkeyed);

    OutboxEntry entry = store.find(blankKey).orElseThrow();
    assertThat(entry.message().orderingKey()).as("a blank key is no readable key").isEmpty();
    assertQuarantinedAsUnreadable(blankKey, "column ordering_key is blank");
  }

  @Test
  public final void raw_columns_show_what_an_unreadable_row_holds_but_never_its_payload() {
    UUID bad = plain(new PlainSqlRow(UUID.randomUUID(), " ", "A", "secret-payload".getBytes(
        java.nio.charset.StandardCharsets.UTF_8), "application/json", "[1,2,3]"));
    store.claim(10, now(), LEASE);

    Map<String, String> raw = store.rawColumns(bad).orElseThrow();

    assertThat(raw).containsEntry("headers", "[1,2,3]").containsEntry("destination", " ")
        .containsEntry("ordering_key", "A").containsEntry("status", "QUARANTINED")
        .containsEntry("quarantine_kind", "UNREADABLE").containsKeys("id", "seq", "created_at", "payload");
    assertThat(raw.values()).noneMatch(value -> value != null && value.contains("secret-payload"));
    assertThat(raw.get("payload")).contains("14 bytes");
    OutboxEntry entry = store.find(bad).orElseThrow();
    assertThat(entry.message().headers()).isEmpty();
    assertThat(entry.quarantineReason()).contains("column destination is blank", "column headers")
        .doesNotContain("secret-payload");
    assertThat(store.rawColumns(UUID.randomUUID())).isEmpty();
  }

  @Test
  public final void entry_face_reads_never_fail_on_an_unreadable_row() {
    UUID first = store.enqueue(unkeyed("first")).id();
    UUID bad = plain(PlainSqlRow.of("orders", "A", "bad", "[1,2,3]"));
    UUID last = store.enqueue(unkeyed("last")).id();

    assertThat(store.find(bad)).get().satisfies(entry -> {
      assertThat(entry.id()).isEqualTo(bad);
      assertThat(entry.message().headers()).isEmpty();
    });
    assertThat(store.findPending(10)).extracting(OutboxEntry::id)
        .as("the unreadable row is left out, and quarantined as a claim would").containsExactly(first, last);
    assertQuarantinedAsUnreadable(bad, "column headers");
    assertThat(store.findRetryReady(now(), 10)).isEmpty();
    assertThat(store.quarantined(QuarantineQuery.first(10))).extracting(OutboxEntry::id).containsExactly(bad);
  }

  @Test
  public final void a_row_the_store_cannot_read_is_counted_under_a_placeholder_destination_and_blocks_its_key() {
    plain(PlainSqlRow.of(" ", "A", "a1", "{}")); // blank destination, head of key A
    store.enqueue(message("erp", "A"));

    assertThat(store.destinationStats(now(), 10)).extracting(DestinationStats::destination)
        .containsExactlyInAnyOrder(DestinationStats.UNREADABLE, "erp");
    assertThat(store.stats(now()).waiting()).isEqualTo(2);

    assertThat(deliverEverythingClaimable(now())).isEmpty(); // the claim quarantines the row; erp waits behind it

    List<DestinationStats> rows = store.destinationStats(now(), 10);
    assertThat(rows).extracting(DestinationStats::destination).containsExactly("erp", DestinationStats.UNREADABLE);
    assertThat(rows.get(0).stats().blocked()).isEqualTo(1);
    assertThat(rows.get(0).stats().waiting()).isZero();
    assertThat(rows.get(1).stats().quarantined()).isEqualTo(1);
    assertThat(store.stats(now()).blocked()).isEqualTo(1);
  }

  /** Writes a message, claims it and quarantines it; call only when no other entry is claimable. */
  private UUID quarantineNew(Message message, QuarantineReason reason) {
    UUID id = store.enqueue(message).id();
    List<Claim> claims = store.claim(100, now(), LEASE);
    assertThat(ids(claims)).containsExactly(id);
    assertThat(store.quarantine(claims.get(0), reason)).isTrue();
    return id;
  }
}
