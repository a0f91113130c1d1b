package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.DeliveryRecordGoneException;
import dev.outbox4j.spi.OutboxStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay contract for destinations whose transport delivers a batch atomically and in order (SPEC: runs of a key,
 * entries in doubt), run on any store with {@link AtomicTestTransport}. Subclass it and implement {@link #newStore}.
 *
 * <p>Time moves on a {@link SettableClock}: a relay that "died" is one that recorded nothing, and its lease ends when the
 * test moves the clock past it.
 */
public abstract class AtomicBatchRelayContract {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Set<String> ATOMIC = Set.of("ledger");

  /** The clock shared by the store and the relay. */
  protected SettableClock clock;
  private OutboxStore store;

  /**
   * @param clock the clock the store must use
   * @return a new, EMPTY store that deletes on delivery
   */
  protected abstract OutboxStore newStore(Clock clock);

  @BeforeEach
  final void createStore() {
    clock = SettableClock.atFixedStart();
    store = newStore(clock);
  }

  private Relay relay(AtomicTestTransport transport, int batchSize) {
    return Relay.builder(store, transport).withClock(clock).withLease(LEASE).withBatchSize(batchSize).build();
  }

  private UUID write(String destination, String key, String payload) {
    return store.enqueue(Message.builder().withDestination(destination).withOrderingKey(key).withPayload(payload)
        .build()).id();
  }

  private static String text(Message message) {
    return new String(message.payload(), StandardCharsets.UTF_8);
  }

  /** @return the payloads that landed, by key, in landing order */
  private static Map<String, List<String>> byKey(List<Message> landed) {
    Map<String, List<String>> keys = new HashMap<>();
    for (Message message : landed) {
      keys.computeIfAbsent(message.orderingKey().orElse(""), k -> new ArrayList<>()).add(text(message));
    }
    return keys;
  }

  private static List<String> numbered(String prefix, int count) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add(prefix + i);
    }
    return names;
  }

  @Test
  public final void a_hot_key_goes_in_runs_in_its_order_each_entry_landing_once() {
    for (int i = 0; i < 40; i++) {
      write("ledger", "k" + (i % 2), "k" + (i % 2) + "-" + (i / 2));
    }
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);

    RelayResult result = relay.drain(10);

    assertThat(result.delivered()).isEqualTo(40);
    Map<String, List<String>> keys = byKey(transport.landed());
    assertThat(keys.get("k0")).containsExactlyElementsOf(numbered("k0-", 20));
    assertThat(keys.get("k1")).containsExactlyElementsOf(numbered("k1-", 20));
    // the first pass meets the destination and claims heads; from the second on, a key's run goes in one batch
    assertThat(transport.batches()).hasSizeLessThanOrEqualTo(3);
    assertThat(transport.batches().stream().mapToInt(List::size).max().orElse(0)).isGreaterThanOrEqualTo(38);
    assertThat(store.stats(clock.instant()).pending()).isZero();
  }

  @Test
  public final void a_destination_without_atomic_batches_keeps_one_entry_of_a_key_in_flight() {
    write("ledger", "warm-up", "w");
    for (int i = 0; i < 5; i++) {
      write("plain", "k", "p" + i);
    }
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);

    relay.flush(); // meets the atomic destination: runs are claimed from now on
    for (int i = 1; i < 5; i++) {
      assertThat(relay.flush().delivered()).as("pass " + i).isEqualTo(1);
    }
    assertThat(byKey(transport.landed()).get("k")).containsExactly("p0", "p1", "p2", "p3", "p4");
  }

  @Test
  public final void a_run_ends_where_its_key_changes_destination() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush(); // meets the atomic destination: runs are claimed from now on
    write("ledger", "k", "a0");
    write("ledger", "k", "a1");
    write("plain", "k", "b0");
    write("ledger", "k", "a2");

    relay.drain(10);

    assertThat(byKey(transport.landed()).get("k")).containsExactly("a0", "a1", "b0", "a2");
    assertThat(transport.batches()).anySatisfy(batch -> assertThat(batch).extracting(AtomicBatchRelayContractTexts::of)
        .containsExactly("a0", "a1"));
  }

  @Test
  public final void a_failing_entry_is_charged_and_its_batch_goes_back_uncharged() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    write("ledger", "a", "a0");
    write("ledger", "a", "a1");
    UUID b0 = write("ledger", "b", "b0");
    UUID b1 = write("ledger", "b", "b1");
    write("ledger", "b", "b2");
    transport.thenBatch(false, batch -> BatchOutcome.abortedBy(b1, DeliveryOutcome.retryable("too large for now")));

    RelayResult failing = relay.flush();

    assertThat(failing.delivered()).isZero();
    assertThat(failing.failed()).isEqualTo(1);
    assertThat(store.find(b1).orElseThrow().status()).isEqualTo(EntryStatus.FAILED);
    assertThat(store.find(b1).orElseThrow().attempts()).isEqualTo(1);
    assertThat(store.find(b0).orElseThrow().attempts()).isZero();
    assertThat(store.find(b0).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);

    relay.flush(); // a0, a1 and b0 land; b1 waits for its retry time, b2 behind it
    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0", "a1");
    assertThat(byKey(transport.landed()).get("b")).containsExactly("b0");
    clock.advance(Duration.ofMinutes(5));
    relay.drain(10);
    assertThat(byKey(transport.landed()).get("b")).containsExactly("b0", "b1", "b2");
  }

  @Test
  public final void a_permanent_failure_quarantines_its_entry_and_blocks_only_its_key() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    write("ledger", "a", "a0");
    UUID b0 = write("ledger", "b", "b0");
    write("ledger", "b", "b1");
    transport.thenBatch(false, batch -> BatchOutcome.abortedBy(b0, DeliveryOutcome.permanent("refused")));

    relay.flush();
    relay.drain(10);

    assertThat(store.find(b0).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0");
    assertThat(byKey(transport.landed())).doesNotContainKey("b");
  }

  @Test
  public final void a_batch_aborted_by_a_culprit_it_does_not_hold_charges_none_of_its_members() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    UUID a0 = write("ledger", "a", "a0");
    UUID a1 = write("ledger", "a", "a1");
    UUID b0 = write("ledger", "b", "b0");
    transport.thenBatch(false, batch -> BatchOutcome.abortedBy(UUID.randomUUID(),
        DeliveryOutcome.permanent("record too large")));

    RelayResult aborted = relay.flush();

    assertThat(aborted.quarantined() + aborted.failed()).as("no member is at fault").isZero();
    for (UUID id : List.of(a0, a1, b0)) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.attempts()).isZero();
      assertThat(entry.status()).isNotEqualTo(EntryStatus.QUARANTINED);
    }
    clock.advance(Duration.ofMinutes(5));
    relay.drain(10);
    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0", "a1");
    assertThat(byKey(transport.landed()).get("b")).containsExactly("b0");
  }

  @Test
  public final void a_batch_aborted_for_no_member_s_fault_charges_none_of_them() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    UUID a0 = write("ledger", "a", "a0");
    transport.thenBatch(false, batch -> BatchOutcome.aborted(DeliveryOutcome.retryable("transaction timed out")));

    relay.flush();

    assertThat(store.find(a0).orElseThrow().attempts()).as("a lone member is no more at fault").isZero();
    clock.advance(Duration.ofMinutes(5));
    relay.drain(10);
    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0");
  }

  @Test
  public final void a_batch_refused_whole_goes_back_uncharged_and_lands_later() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    UUID a0 = write("ledger", "a", "a0");
    write("ledger", "a", "a1");
    transport.thenBatch(false, batch -> BatchOutcome.notDelivered("claim too old"));

    relay.flush();
    assertThat(store.find(a0).orElseThrow().attempts()).isZero();
    relay.drain(10);

    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0", "a1");
  }

  @Test
  public final void a_batch_that_landed_with_its_outcome_unknown_is_retired_by_the_next_claim_without_a_second_copy() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    UUID a0 = write("ledger", "a", "a0");
    write("ledger", "a", "a1");
    write("ledger", "b", "b0");
    transport.thenBatch(true, batch -> BatchOutcome.inDoubt("commit timed out"));

    RelayResult unknown = relay.flush();
    assertThat(unknown.delivered()).isZero();
    assertThat(relay.flush().claimed()).as("left claimed until its lease ends").isZero();
    clock.advance(LEASE.plusSeconds(1));
    RelayResult settled = relay.drain(10);

    assertThat(settled.delivered()).isEqualTo(3);
    assertThat(transport.lookups()).hasSize(1);
    assertThat(transport.landed()).extracting(Message::id).doesNotHaveDuplicates();
    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0", "a1");
    assertThat(store.find(a0)).isEmpty();
  }

  @Test
  public final void a_batch_that_did_not_land_with_its_outcome_unknown_is_sent_once_after_its_lease() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    write("ledger", "a", "a0");
    write("ledger", "a", "a1");
    transport.thenBatch(false, batch -> BatchOutcome.inDoubt("commit timed out"));

    relay.flush();
    clock.advance(LEASE.plusSeconds(1));
    relay.drain(10);

    assertThat(byKey(transport.landed()).get("a")).containsExactly("a0", "a1");
    assertThat(transport.lookups()).hasSize(1);
  }

  @Test
  public final void an_entry_in_doubt_whose_fate_cannot_be_told_now_waits_for_another_lease() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    write("ledger", "a", "a0");
    transport.thenBatch(true, batch -> BatchOutcome.inDoubt("commit timed out"));
    relay.flush();
    clock.advance(LEASE.plusSeconds(1));
    transport.thenLookupFails(new IllegalStateException("broker unreachable"));

    RelayResult cannotTell = relay.flush();
    assertThat(cannotTell.delivered()).isZero();
    assertThat(transport.landed()).extracting(AtomicBatchRelayContractTexts::of).containsExactly("w", "a0");
    clock.advance(LEASE.plusSeconds(1));
    relay.drain(10);

    assertThat(transport.landed()).extracting(AtomicBatchRelayContractTexts::of).containsExactly("w", "a0");
    assertThat(store.stats(clock.instant()).pending()).isZero();
  }

  @Test
  public final void an_entry_in_doubt_whose_record_is_gone_is_quarantined_and_its_run_not_sent() {
    write("ledger", "warm-up", "w");
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    Relay relay = relay(transport, 100);
    relay.flush();
    UUID a0 = write("ledger", "a", "a0");
    write("ledger", "a", "a1");
    transport.thenBatch(false, batch -> BatchOutcome.inDoubt("commit timed out"));
    relay.flush();
    clock.advance(LEASE.plusSeconds(1));
    transport.thenLookupFails(new DeliveryRecordGoneException("progress topic retention passed"));

    relay.drain(10);

    OutboxEntry quarantined = store.find(a0).orElseThrow();
    assertThat(quarantined.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(quarantined.quarantineReason()).contains("in doubt", "progress topic retention passed");
    assertThat(byKey(transport.landed())).doesNotContainKey("a");
  }

  @Test
  public final void an_entry_in_doubt_of_a_destination_without_atomic_batches_is_sent_again() {
    AtomicTestTransport transport = new AtomicTestTransport(ATOMIC);
    UUID p0 = write("plain", "k", "p0");
    Instant first = clock.instant();
    List<dev.outbox4j.spi.Claim> claimed = store.claim(10, first, LEASE); // a relay that died with it claimed
    assertThat(claimed).extracting(dev.outbox4j.spi.Claim::id).containsExactly(p0);
    clock.advance(LEASE.plusSeconds(1));

    relay(transport, 100).drain(10);

    assertThat(transport.landed()).extracting(AtomicBatchRelayContractTexts::of).containsExactly("p0");
    assertThat(transport.lookups()).isEmpty();
  }
}
