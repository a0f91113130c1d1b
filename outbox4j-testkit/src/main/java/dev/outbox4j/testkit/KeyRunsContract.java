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
 * The store contract for runs of a key and entries in doubt (see {@code OutboxStore}: "Runs of a key", "Entries in
 * doubt"), part of {@link OutboxStoreContract}; subclass that.
 */
public abstract class KeyRunsContract extends DeliveredAndClaimedContract {

  // ------------------------------------------------------------------------------------------ runs of a key

  /** @return the key's next entries, written now */
  private List<UUID> enqueueKey(String key, int count) {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      written.add(store.enqueue(message("d", key)).id());
    }
    return written;
  }

  /** @return when a claim made at {@code claimedAt} has certainly expired */
  private static Instant afterTheLease(Instant claimedAt) {
    return claimedAt.plus(LEASE).plusSeconds(1);
  }

  /** @return the one claim a claim of everything returns at {@code at} */
  private Claim onlyClaim(Instant at) {
    List<Claim> claims = store.claim(10, at, LEASE);
    assertThat(claims).hasSize(1);
    return claims.get(0);
  }

  @Test
  public final void a_claim_with_max_run_one_claims_as_a_claim_without_runs_does() {
    UUID a1 = store.enqueue(message("d", "A")).id();
    store.enqueue(message("d", "A"));
    UUID b1 = store.enqueue(message("d", "B")).id();
    UUID free = store.enqueue(unkeyed("x")).id();

    List<Claim> claims = store.claim(10, now(), LEASE, 1);

    assertThat(ids(claims)).containsExactly(a1, b1, free);
    assertThat(store.claim(10, now(), LEASE, 5)).as("the key's head is held, so nothing behind it may run").isEmpty();
    assertThatThrownBy(() -> store.claim(1, now(), LEASE, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public final void a_run_of_a_key_comes_with_its_head_in_seq_order_under_one_token() {
    UUID a1 = store.enqueue(message("d", "A")).id();
    UUID b1 = store.enqueue(message("d", "B")).id();
    UUID a2 = store.enqueue(message("d", "A")).id();
    UUID free = store.enqueue(unkeyed("x")).id();
    UUID a3 = store.enqueue(message("d", "A")).id();

    List<Claim> claims = store.claim(10, now(), LEASE, 5);

    assertThat(ids(claims)).containsExactly(a1, b1, a2, free, a3);
    assertThat(claims).extracting(Claim::token).containsOnly(claims.get(0).token());
    assertThat(claims).allSatisfy(c -> assertThat(c.leaseUntil()).isEqualTo(now().plus(LEASE)));
    assertThat(claims).allSatisfy(c -> assertThat(c.inDoubtSince()).isNull());
    assertThat(store.claim(10, now(), LEASE, 5)).isEmpty();
    assertThat(store.markDelivered(claims, now())).as("each claim of a run completes on its own").isEmpty();
    assertThat(store.stats(now()).pending()).isZero();
  }

  @Test
  public final void the_limit_counts_every_member_of_a_run_and_max_run_caps_a_run() {
    List<UUID> a = enqueueKey("A", 4);
    List<UUID> b = enqueueKey("B", 2);

    // the heads first, then the runs in the room they leave, oldest first
    List<Claim> limited = store.claim(3, now(), LEASE, 5);
    assertThat(ids(limited)).containsExactly(a.get(0), a.get(1), b.get(0));
    assertThat(store.release(limited)).isEmpty();

    List<Claim> capped = store.claim(10, now(), LEASE, 2);
    assertThat(ids(capped)).containsExactly(a.get(0), a.get(1), b.get(0), b.get(1));
    assertThat(store.markDelivered(capped, now())).isEmpty();
    assertThat(ids(store.claim(10, now(), LEASE, 5))).containsExactly(a.get(2), a.get(3));
  }

  @Test
  public final void a_run_stops_before_a_failed_or_a_quarantined_entry() {
    List<UUID> f = enqueueKey("F", 3);
    List<UUID> q = enqueueKey("Q", 3);
    List<Claim> runs = store.claim(10, now(), LEASE, 5);
    assertThat(ids(runs)).containsExactlyElementsOf(concat(f, q));
    assertThat(store.markFailed(runs.get(1), "500", now())).isTrue(); // failed, and available again at once
    assertThat(store.quarantine(runs.get(4), poison("rejected"))).isTrue();
    assertThat(store.release(List.of(runs.get(0), runs.get(2), runs.get(3), runs.get(5)))).isEmpty();

    List<Claim> claims = store.claim(10, now(), LEASE, 5);

    assertThat(ids(claims)).containsExactly(f.get(0), q.get(0));
  }

  @Test
  public final void a_run_stops_before_a_parked_a_not_yet_available_or_a_still_claimed_entry() {
    List<UUID> p = enqueueKey("P", 1);
    OutboxEntry parked = store.enqueue(message("d", "P"));
    p.add(store.enqueue(message("d", "P")).id());
    assertThat(store.markFailed(parked, "consumer rejected it", null).status()).isEqualTo(EntryStatus.PARKED);
    UUID n1 = store.enqueue(message("d", "N")).id();
    Instant later = now().plusSeconds(60);
    UUID n2 = store.enqueue(Message.builder().withDestination("d").withOrderingKey("N").withNotBefore(later).build())
        .id();
    UUID n3 = store.enqueue(message("d", "N")).id();
    List<UUID> c = enqueueKey("C", 3);
    List<Claim> first = store.claim(10, now(), LEASE, 2);
    assertThat(ids(first)).containsExactly(p.get(0), n1, c.get(0), c.get(1));
    assertThat(store.release(first.stream().filter(claim -> !claim.id().equals(c.get(1))).toList())).isEmpty();

    List<Claim> claims = store.claim(10, now(), LEASE, 5);

    assertThat(ids(claims)).as("C's second entry is still claimed").containsExactly(p.get(0), n1, c.get(0));
    assertThat(store.markDelivered(claims, now())).isEmpty();
    assertThat(store.markDelivered(List.of(first.get(3)), now())).isEmpty();
    assertThat(ids(store.claim(10, later, LEASE, 5))).as("N's second entry is available now, P is still parked")
        .containsExactly(n2, n3, c.get(2));
  }

  @Test
  public final void while_a_run_is_claimed_no_claim_gets_its_keys_entries_and_a_follower_stays_held_after_its_head() {
    List<UUID> a = enqueueKey("A", 3);
    List<UUID> c = enqueueKey("C", 3);
    Instant t0 = now();
    List<Claim> runs = store.claim(10, t0, LEASE, 2);
    assertThat(ids(runs)).containsExactly(a.get(0), a.get(1), c.get(0), c.get(1));
    assertThat(store.claim(10, t0, LEASE, 5)).isEmpty();
    assertThat(store.claim(10, t0, LEASE)).isEmpty();

    assertThat(store.markDelivered(List.of(runs.get(0), runs.get(2)), t0)).isEmpty();

    assertThat(store.claim(10, t0, LEASE, 5)).as("each key's next entry is still held by the run's claim").isEmpty();
    assertThat(store.claim(10, t0.plus(LEASE).minusMillis(1), LEASE, 5)).isEmpty();
    assertThat(store.markDelivered(List.of(runs.get(3)), t0)).isEmpty();
    Instant t1 = t0.plusSeconds(1);
    assertThat(ids(store.claim(10, t1, LEASE, 5))).as("C's run was completed").containsExactly(c.get(2));
    List<Claim> takenOver = store.claim(10, t0.plus(LEASE), LEASE, 5);
    assertThat(ids(takenOver)).as("A's lease has ended").containsExactly(a.get(1), a.get(2));
  }

  @Test
  public final void concurrent_claimers_with_runs_never_share_an_entry_and_deliver_each_key_in_order()
      throws Exception {
    int keys = 8;
    int perKey = 12;
    Map<UUID, String> keyOf = new ConcurrentHashMap<>();
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    for (int i = 0; i < perKey; i++) {
      for (int k = 0; k < keys; k++) {
        UUID id = store.enqueue(message("d", "K" + k)).id();
        keyOf.put(id, "K" + k);
        written.computeIfAbsent("K" + k, key -> new ArrayList<>()).add(id);
      }
      store.enqueue(unkeyed("u" + i));
    }
    int total = keys * perKey + perKey;
    Instant start = now();
    Duration lease = Duration.ofMillis(30);
    java.util.concurrent.atomic.AtomicLong ticks = new java.util.concurrent.atomic.AtomicLong();
    Map<UUID, List<Holding>> holdings = new ConcurrentHashMap<>();
    Map<UUID, Integer> deliveries = new ConcurrentHashMap<>();
    Map<UUID, Integer> delivering = new ConcurrentHashMap<>(); // markDelivered calls under way or applied, by entry
    List<String> violations = Collections.synchronizedList(new ArrayList<>());

    Race.run(4, Duration.ofSeconds(180), worker -> () -> {
      java.util.Random random = new java.util.Random(worker);
      for (int round = 0; round < 20_000 && deliveries.size() < total; round++) {
        // Time is a counter shared by the claimers: every claim is a millisecond later, so leases of 30 claims end.
        Instant at = start.plusMillis(ticks.incrementAndGet());
        List<Claim> claims = store.claim(5, at, lease, 3);
        // The latest time any claimer had when this claim returned: a claim whose time was later than this one's may
        // have run first and taken over a lease that ended before then, so only a lease still running at that latest
        // time proves a double claim.
        Instant latest = start.plusMillis(ticks.get());
        Map<String, List<Claim>> runs = new LinkedHashMap<>();
        for (Claim claim : claims) {
          Holding mine = new Holding(claim.token(), at, claim.leaseUntil());
          synchronized (holdings) {
            for (Holding other : holdings.getOrDefault(claim.id(), List.of())) {
              if (other.from().isBefore(mine.until()) && mine.from().isBefore(other.until())
                  && latest.isBefore(other.until())) {
                violations.add(claim.id() + " held twice: " + other + " and " + mine);
              }
            }
            holdings.computeIfAbsent(claim.id(), id -> new ArrayList<>()).add(mine);
          }
          String key = keyOf.get(claim.id());
          if (key != null) {
            runs.computeIfAbsent(key, k -> new ArrayList<>()).add(claim);
          }
        }
        for (Map.Entry<String, List<Claim>> run : runs.entrySet()) {
          List<UUID> order = written.get(run.getKey());
          int first = order.indexOf(run.getValue().get(0).id());
          for (int i = 0; i < run.getValue().size(); i++) {
            if (order.indexOf(run.getValue().get(i).id()) != first + i) {
              violations.add("key " + run.getKey() + " claimed out of order or with a gap: " + ids(run.getValue()));
            }
          }
          for (UUID before : order.subList(0, first)) {
            if (delivering.getOrDefault(before, 0) == 0) {
              violations.add("key " + run.getKey() + " claimed " + order.get(first) + " before " + before
                  + " was delivered");
            }
          }
        }
        completeRandomly(claims, runs, at, random, holdings, delivering, deliveries);
      }
      return null;
    });

    assertThat(violations).isEmpty();
    assertThat(deliveries).hasSize(total);
    assertThat(deliveries.values()).as("each entry delivered exactly once").containsOnly(1);
    assertThat(store.stats(start.plus(Duration.ofDays(1))).pending()).isZero();
  }

  /** A claim of an entry as a concurrent test saw it: its token and the time it was held. */
  private record Holding(UUID token, Instant from, Instant until) {}

  /**
   * Completes claims in one of the ways a relay may: all delivered, a prefix of each run delivered and the rest
   * released, all released, the first failed and the rest released, all postponed, or abandoned (its lease ends and
   * another claim takes it over). Each claim's holding is dropped before its completion is sent, and an entry counts as
   * being delivered from just before its markDelivered (undone when the claim was lost; counted, since a claim whose
   * lease ended and the claim that took it over may both try), so that no check races a completion.
   */
  private void completeRandomly(List<Claim> claims, Map<String, List<Claim>> runs, Instant at,
      java.util.Random random, Map<UUID, List<Holding>> holdings, Map<UUID, Integer> delivering,
      Map<UUID, Integer> deliveries) {
    int choice = random.nextInt(10);
    if (claims.isEmpty() || choice == 0) {
      return;
    }
    List<Claim> deliver = new ArrayList<>();
    List<Claim> release = new ArrayList<>();
    if (choice <= 5) {
      deliver.addAll(claims);
    } else if (choice == 6) {
      Set<Claim> inRuns = new HashSet<>();
      for (List<Claim> run : runs.values()) {
        int delivered = random.nextInt(run.size() + 1);
        deliver.addAll(run.subList(0, delivered));
        release.addAll(run.subList(delivered, run.size()));
        inRuns.addAll(run);
      }
      claims.stream().filter(claim -> !inRuns.contains(claim)).forEach(deliver::add);
    } else if (choice == 7 || choice == 8) {
      release.addAll(claims);
    }
    synchronized (holdings) {
      for (Claim claim : claims) {
        holdings.getOrDefault(claim.id(), new ArrayList<>()).removeIf(h -> h.token().equals(claim.token()));
      }
    }
    if (choice == 8) {
      store.markFailed(release.remove(0), "500", at.plusMillis(2));
    } else if (choice == 9) {
      store.postpone(claims, "broker down", at.plusMillis(2));
    }
    deliver.forEach(claim -> delivering.merge(claim.id(), 1, Integer::sum));
    List<Claim> lost = deliver.isEmpty() ? List.of() : store.markDelivered(deliver, at);
    lost.forEach(claim -> delivering.merge(claim.id(), -1, Integer::sum));
    deliver.stream().filter(claim -> !lost.contains(claim))
        .forEach(claim -> deliveries.merge(claim.id(), 1, Integer::sum));
    if (!release.isEmpty()) {
      store.release(release);
    }
  }

  private static List<UUID> concat(List<UUID> first, List<UUID> second) {
    List<UUID> both = new ArrayList<>(first);
    both.addAll(second);
    return both;
  }

  // ------------------------------------------------------------------------------------------ entries in doubt

  @Test
  public final void a_takeover_marks_an_entry_in_doubt_since_the_claim_that_expired_and_keeps_the_earliest() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Instant t0 = now();
    assertThat(onlyClaim(t0).inDoubtSince()).as("a fresh claim").isNull();

    Instant t1 = afterTheLease(t0);
    Claim takenOver = onlyClaim(t1);
    assertThat(takenOver.id()).isEqualTo(id);
    assertThat(takenOver.inDoubt()).isTrue();
    assertThat(takenOver.inDoubtSince()).isEqualTo(t0);

    Instant t2 = afterTheLease(t1);
    Claim again = onlyClaim(t2);
    assertThat(again.inDoubtSince()).as("a second takeover keeps the first").isEqualTo(t0);
    assertThat(store.release(List.of(again))).isEmpty();
    assertThat(onlyClaim(t2).inDoubtSince()).as("a release records no outcome").isEqualTo(t0);
  }

  @Test
  public final void mark_failed_postpone_and_quarantine_record_an_outcome_and_clear_the_mark() {
    UUID id = store.enqueue(unkeyed("a")).id();
    Instant t0 = now();
    onlyClaim(t0);
    Instant t1 = afterTheLease(t0);
    assertThat(store.markFailed(onlyClaim(t1), "500", t1)).isTrue();
    Claim afterFailure = onlyClaim(t1);
    assertThat(afterFailure.inDoubtSince()).isNull();

    Instant t2 = afterTheLease(t1);
    Claim takenOver = onlyClaim(t2);
    assertThat(takenOver.inDoubtSince()).as("the claim made after the failure").isEqualTo(t1);
    assertThat(store.postpone(takenOver, "broker down", t2)).isTrue();
    assertThat(onlyClaim(t2).inDoubtSince()).isNull();

    Instant t3 = afterTheLease(t2);
    Claim bulk = onlyClaim(t3);
    assertThat(bulk.inDoubtSince()).isEqualTo(t2);
    assertThat(store.postpone(List.of(bulk), "broker down", t3)).isEmpty();
    assertThat(onlyClaim(t3).inDoubtSince()).isNull();

    Instant t4 = afterTheLease(t3);
    Claim poisoned = onlyClaim(t4);
    assertThat(poisoned.inDoubtSince()).isEqualTo(t3);
    assertThat(store.quarantine(poisoned, poison("rejected"))).isTrue();
    assertThat(store.requeue(id, t4)).isTrue();
    Claim requeued = onlyClaim(t4);
    assertThat(requeued.inDoubtSince()).isNull();
    assertThat(store.markDelivered(List.of(requeued), t4)).isEmpty();
  }

  @Test
  public final void a_takeover_of_a_run_marks_every_member_in_doubt() {
    List<UUID> a = enqueueKey("A", 3);
    Instant t0 = now();
    List<Claim> run = store.claim(10, t0, LEASE, 5);
    assertThat(ids(run)).containsExactlyElementsOf(a);
    assertThat(store.markDelivered(List.of(run.get(0)), t0)).isEmpty();

    List<Claim> takenOver = store.claim(10, afterTheLease(t0), LEASE, 5);

    assertThat(ids(takenOver)).containsExactly(a.get(1), a.get(2));
    assertThat(takenOver).allSatisfy(claim -> assertThat(claim.inDoubtSince()).isEqualTo(t0));
  }

  @Test
  public final void every_entry_of_an_expired_claim_is_marked_even_when_a_takeover_takes_only_one() {
    List<UUID> written = List.of(store.enqueue(unkeyed("a")).id(), store.enqueue(unkeyed("b")).id(),
        store.enqueue(unkeyed("c")).id());
    Instant t0 = now();
    assertThat(store.claim(10, t0, LEASE)).hasSize(3);
    Instant t1 = afterTheLease(t0);

    List<Claim> one = store.claim(1, t1, LEASE);
    assertThat(ids(one)).containsExactly(written.get(0));
    assertThat(one.get(0).inDoubtSince()).isEqualTo(t0);

    List<Claim> rest = store.claim(10, t1.plusSeconds(1), LEASE);
    assertThat(ids(rest)).containsExactly(written.get(1), written.get(2));
    assertThat(rest).allSatisfy(claim -> assertThat(claim.inDoubtSince()).isEqualTo(t0));
  }
}
