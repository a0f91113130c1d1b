package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.OutboxException;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The store contract for the step between two batches ({@link OutboxStore#markDeliveredAndClaim}): confirmations
 * retired and the next batch claimed in one call, one transaction where the store can. Every rule of the two halves
 * holds in it: a key's order, the fence of a completion whose claim was taken over, the claim held once the call
 * returns, and, for a store that does both in one transaction, nothing changed by a step that failed. Part of
 * {@link OutboxStoreContract}; subclass that.
 */
public abstract class DeliveredAndClaimedContract extends OperatorFaceContract {

  /**
   * Makes every claim of the store's tables fail once it has begun, after whatever it runs before its own write (for a
   * JDBC store: a trigger that refuses the claim's write), or lets claims succeed again.
   *
   * @param refuse whether claims are to fail from now on
   * @return {@code false}, having changed nothing, when the store cannot fail a claim on purpose, or does not retire and
   *     claim in one transaction (the default's two calls): the test of a failed step is then skipped
   */
  protected boolean refuseClaims(boolean refuse) {
    return false;
  }

  private static ClaimRequest next(int limit, Instant now) {
    return new ClaimRequest(limit, now, LEASE);
  }

  @Test
  public final void the_step_retires_the_confirmed_entries_and_claims_their_keys_next_entries_in_key_order() {
    List<UUID> k1 = enqueue("K1", 3);
    List<UUID> k2 = enqueue("K2", 2);
    UUID unkeyed = store.enqueue(unkeyed("u")).id();
    List<Claim> first = store.claim(10, now(), LEASE);
    assertThat(ids(first)).containsExactlyInAnyOrder(k1.get(0), k2.get(0), unkeyed);

    DeliveredAndClaimed step = store.markDeliveredAndClaim(first, now(), next(10, now()));

    assertThat(step.lost()).isEmpty();
    assertThat(ids(step.claims())).as("each key's next entry, in seq order").containsExactly(k1.get(1), k2.get(1));
    assertThat(store.find(k1.get(0))).isEmpty();
    assertThat(store.find(unkeyed)).isEmpty();
    assertThat(step.claims()).allSatisfy(c -> assertThat(c.leaseUntil()).isEqualTo(now().plus(LEASE)));

    DeliveredAndClaimed second = store.markDeliveredAndClaim(step.claims(), now(), next(10, now()));
    assertThat(second.lost()).isEmpty();
    assertThat(ids(second.claims())).containsExactly(k1.get(2));
    DeliveredAndClaimed last = store.markDeliveredAndClaim(second.claims(), now(), next(10, now()));
    assertThat(last.lost()).isEmpty();
    assertThat(last.claims()).isEmpty();
    assertThat(store.claim(10, now().plus(LEASE), LEASE)).as("nothing left, even after the leases").isEmpty();
  }

  @Test
  public final void the_step_keeps_delivered_entries_under_a_retention_and_claims_behind_them() {
    OutboxStore keeping = newStore(clock, Retention.keepFor(Duration.ofHours(1)));
    List<UUID> key = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      key.add(keeping.enqueue(message("orders", "K")).id());
    }
    List<Claim> first = keeping.claim(10, now(), LEASE);

    DeliveredAndClaimed step = keeping.markDeliveredAndClaim(first, now(), next(10, now()));

    assertThat(step.lost()).isEmpty();
    assertThat(ids(step.claims())).containsExactly(key.get(1));
    assertThat(keeping.find(key.get(0)).orElseThrow().status()).isEqualTo(EntryStatus.DELIVERED);
    assertThat(keeping.find(key.get(0)).orElseThrow().deliveredAt()).isEqualTo(now());
  }

  @Test
  public final void a_step_with_nothing_confirmed_is_a_claim() {
    UUID id = store.enqueue(unkeyed("a")).id();

    DeliveredAndClaimed step = store.markDeliveredAndClaim(List.of(), now(), next(10, now()));

    assertThat(step.lost()).isEmpty();
    assertThat(ids(step.claims())).containsExactly(id);
  }

  @Test
  public final void a_step_whose_confirmed_claims_were_taken_over_changes_none_of_them_and_still_claims() {
    List<UUID> k1 = enqueue("K1", 2);
    List<UUID> k2 = enqueue("K2", 2);
    List<Claim> expired = store.claim(10, now(), LEASE);
    assertThat(ids(expired)).containsExactly(k1.get(0), k2.get(0));
    Instant later = now().plus(LEASE).plusSeconds(1);
    List<Claim> takenOver = store.claim(1, later, LEASE);
    assertThat(ids(takenOver)).containsExactly(k1.get(0));

    DeliveredAndClaimed step = store.markDeliveredAndClaim(expired, later, next(10, later));

    assertThat(ids(step.lost())).as("the entry taken over").containsExactly(k1.get(0));
    assertThat(store.find(k1.get(0))).as("the late confirmation changed nothing").isPresent();
    assertThat(store.find(k2.get(0))).as("nobody took it over: its delivery is recorded").isEmpty();
    assertThat(ids(step.claims())).as("K1's head is still held by the takeover").containsExactly(k2.get(1));
    assertThat(store.markDelivered(takenOver, later)).as("the takeover's own claim completes").isEmpty();
    assertThat(ids(store.claim(10, later, LEASE))).containsExactly(k1.get(1));
  }

  @Test
  public final void a_step_that_failed_retired_nothing_and_claimed_nothing() {
    List<UUID> key = enqueue("K", 2);
    List<Claim> first = store.claim(10, now(), LEASE);
    assumeThat(refuseClaims(true)).as("the store can fail a claim on purpose, and steps in one transaction").isTrue();
    try {
      assertThatThrownBy(() -> store.markDeliveredAndClaim(first, now(), next(10, now())))
          .isInstanceOf(OutboxException.class);
    } finally {
      refuseClaims(false);
    }

    assertThat(store.find(key.get(0))).as("its retirement was rolled back with the claim").isPresent();
    assertThat(store.claim(10, now(), LEASE)).as("the head is still held, so its key's next entry waits").isEmpty();
    assertThat(store.markDelivered(first, now())).as("the confirmation still applies on its own").isEmpty();
    assertThat(ids(store.claim(10, now(), LEASE))).containsExactly(key.get(1));
  }

  @Test
  public final void the_steps_claims_are_held_for_every_store_instance_once_it_returned() {
    enqueue("K", 2);
    UUID unkeyed = store.enqueue(unkeyed("u")).id();
    List<Claim> first = store.claim(1, now(), LEASE);

    DeliveredAndClaimed step = store.markDeliveredAndClaim(first, now(), next(10, now()));

    assertThat(step.claims()).hasSize(2).extracting(Claim::id).contains(unkeyed);
    assertThat(operatorStore().claim(10, now(), LEASE)).as("claimed and committed before the step returned").isEmpty();
    assertThat(store.claim(10, now().plus(LEASE), LEASE)).as("until their lease").hasSize(2);
  }

  @Test
  public final void relays_stepping_from_batch_to_batch_deliver_every_key_in_order_exactly_once() {
    Map<String, List<UUID>> written = new LinkedHashMap<>();
    for (int k = 0; k < 6; k++) {
      written.put("K" + k, enqueue("K" + k, 12));
    }
    for (int i = 0; i < 10; i++) {
      written.computeIfAbsent("unkeyed", x -> new ArrayList<>()).add(store.enqueue(unkeyed("u" + i)).id());
    }
    List<UUID> delivered = Collections.synchronizedList(new ArrayList<>());
    Instant now = now();
    List<OutboxStore> relays = List.of(store, operatorStore());

    Race.run(2, Duration.ofSeconds(120), i -> () -> {
      OutboxStore relay = relays.get(i);
      List<Claim> batch = relay.claim(4, now, LEASE);
      for (int idle = 0; idle < 50; ) {
        batch.forEach(claim -> delivered.add(claim.id())); // "sent": before the step retires them
        DeliveredAndClaimed step = relay.markDeliveredAndClaim(batch, now, next(4, now));
        assertThat(step.lost()).isEmpty();
        batch = step.claims();
        idle = batch.isEmpty() ? idle + 1 : 0;
        if (batch.isEmpty()) {
          Thread.onSpinWait();
        }
      }
      return null;
    });

    assertThat(new HashSet<>(delivered)).as("nothing sent twice").hasSize(delivered.size());
    for (Map.Entry<String, List<UUID>> key : written.entrySet()) {
      List<UUID> sent = delivered.stream().filter(key.getValue()::contains).toList();
      if (key.getKey().equals("unkeyed")) {
        assertThat(sent).containsExactlyInAnyOrderElementsOf(key.getValue());
      } else {
        assertThat(sent).as("key %s in order", key.getKey()).containsExactlyElementsOf(key.getValue());
      }
    }
    assertThat(store.claim(100, now.plus(LEASE), LEASE)).as("nothing left, even after the leases").isEmpty();
  }

  /** @return the key's next entries to {@code orders}, written now */
  private List<UUID> enqueue(String key, int count) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(store.enqueue(message("orders", key)).id());
    }
    return ids;
  }
}
