package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.flow.FlowLedger;
import dev.outbox4j.flow.FlowState;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.flow.FlowStateTooLargeException;
import dev.outbox4j.flow.FlowStateUnreadableException;
import dev.outbox4j.flow.FlowStateUnreadableException.Reason;
import dev.outbox4j.flow.LeaseObservation;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link FlowLedger} passes (SPEC §7): insert-if-absent creation, present / absent / unreadable as
 * three distinct outcomes of a load, revision-checked and lease-fenced updates, leases acquired only when unowned or
 * expired, renewed only by the unexpired owner, released only by the owner and observed verbatim, TTL expiry and
 * purge, and the serialized-size budget.
 *
 * <p>Subclass it and implement the three abstract methods; every {@code final} test runs. Bodies are strings, and the
 * subclass's codec must read schema version 1 and refuse {@value #UNKNOWN_SCHEMA_VERSION}, as
 * {@code JsonFlowStateCodec.of(String.class)} does. Time is a {@link SettableClock}.
 */
public abstract class FlowLedgerContract {
  /** How long a test waits for racing threads. */
  protected static final Duration WAIT = Duration.ofSeconds(60);

  /** A schema version the codec under test must not read. */
  protected static final int UNKNOWN_SCHEMA_VERSION = 99;

  /** The budget of the ledger most tests use, in bytes. */
  protected static final int BUDGET = 1024;

  private static final Duration TTL = Duration.ofHours(1);
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final SettableClock clock = SettableClock.atFixedStart();
  private @Nullable FlowLedger<String> ledger;

  /**
   * @param clock the clock the ledger must take "now" from
   * @param maxStateBytes the ledger's serialized-state budget, in bytes
   * @return a ledger over empty storage (no flows from earlier tests); the latest one is the one
   *     {@link #plantRaw} writes into
   */
  protected abstract FlowLedger<String> newLedger(Clock clock, int maxStateBytes);

  /** @return the codec the ledgers use: reads schema version 1, refuses {@value #UNKNOWN_SCHEMA_VERSION} */
  protected abstract FlowStateCodec<String> codec();

  /**
   * Stores raw content under a flow id in the latest ledger's storage, bypassing the codec and all checks, with no
   * lease: how the suite plants content no correct writer produces.
   *
   * @param flowId the key
   * @param storedRevision the revision stored beside the content
   * @param content the raw bytes
   * @param ttl time to live from the clock's now
   */
  protected abstract void plantRaw(String flowId, long storedRevision, byte[] content, Duration ttl);

  @BeforeEach
  final void createLedger() {
    ledger = newLedger(clock, BUDGET);
  }

  /** @return the ledger under test */
  protected final FlowLedger<String> ledger() {
    if (ledger == null) {
      throw new IllegalStateException("no ledger created");
    }
    return ledger;
  }

  /** @return the clock given to the ledger */
  protected final SettableClock clock() {
    return clock;
  }

  private static String newFlowId() {
    return "flow-" + UUID.randomUUID();
  }

  private static FlowState<String> state(String flowId, long revision, String body) {
    return new FlowState<>(flowId, revision, 1, body);
  }

  private String created(long revision, String body) {
    String flowId = newFlowId();
    assertThat(ledger().tryCreate(flowId, state(flowId, revision, body), TTL)).isTrue();
    return flowId;
  }

  private void assertUnreadable(String flowId, Reason reason) {
    assertThatThrownBy(() -> ledger().load(flowId))
        .isInstanceOfSatisfying(FlowStateUnreadableException.class, e -> {
          assertThat(e.flowId()).isEqualTo(flowId);
          assertThat(e.reason()).isEqualTo(reason);
        });
    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "replacement"), TTL))
        .as("an unreadable flow is present, so it cannot be created again")
        .isFalse();
    assertThatThrownBy(() -> ledger().load(flowId)).isInstanceOf(FlowStateUnreadableException.class);
  }

  // ------------------------------------------------------------------------------------------ create and load

  @Test
  final void a_created_flow_loads_back_as_written() {
    String flowId = created(1, "accepted");

    assertThat(ledger().load(flowId)).contains(state(flowId, 1, "accepted"));
  }

  @Test
  final void an_unknown_flow_loads_as_absent() {
    assertThat(ledger().load(newFlowId())).isEmpty();
  }

  @Test
  final void creating_a_present_flow_returns_false_and_keeps_the_first_state() {
    String flowId = created(1, "first");

    assertThat(ledger().tryCreate(flowId, state(flowId, 1, "second"), TTL)).isFalse();
    assertThat(ledger().load(flowId)).map(FlowState::body).contains("first");
  }

  @Test
  final void sixteen_threads_creating_one_flow_see_exactly_one_success() {
    String flowId = newFlowId();

    List<Boolean> results =
        Race.run(16, WAIT, i -> () -> ledger().tryCreate(flowId, state(flowId, 0, "creator-" + i), TTL));

    assertThat(results).containsOnlyOnce(true);
    int winner = results.indexOf(true);
    assertThat(ledger().load(flowId)).map(FlowState::body).contains("creator-" + winner);
  }

  @Test
  final void validate_create_refuses_a_state_naming_another_flow_and_writes_nothing() {
    String flowId = newFlowId();
    String other = created(0, "the other flow");

    assertThatThrownBy(() -> ledger().validateCreate(flowId, state(other, 0, "x"), TTL))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(flowId);

    assertThat(ledger().load(flowId)).isEmpty();
    assertThat(ledger().load(other)).map(FlowState::body).contains("the other flow");
  }

  @Test
  final void a_state_whose_flow_id_differs_from_the_key_is_refused() {
    String flowId = newFlowId();

    assertThatThrownBy(() -> ledger().tryCreate(flowId, state("other", 0, "x"), TTL))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ledger().load(flowId)).isEmpty();
  }

  // ------------------------------------------------------------------------------------------ update

  @Test
  final void an_update_replaces_the_state_only_when_the_stored_revision_matches() {
    String flowId = created(1, "accepted");

    assertThat(ledger().tryUpdate(flowId, state(flowId, 3, "stale"), 2, TTL, null)).isFalse();
    assertThat(ledger().tryUpdate(flowId, state(flowId, 2, "charged"), 1, TTL, null)).isTrue();
    assertThat(ledger().tryUpdate(flowId, state(flowId, 2, "again"), 1, TTL, null)).isFalse();

    assertThat(ledger().load(flowId)).contains(state(flowId, 2, "charged"));
  }

  @Test
  final void an_update_of_an_absent_flow_returns_false_and_creates_nothing() {
    String flowId = newFlowId();

    assertThat(ledger().tryUpdate(flowId, state(flowId, 1, "x"), 0, TTL, null)).isFalse();
    assertThat(ledger().load(flowId)).isEmpty();
  }

  @Test
  final void an_update_must_move_the_revision_forward() {
    String flowId = created(5, "x");

    assertThatThrownBy(() -> ledger().tryUpdate(flowId, state(flowId, 5, "y"), 5, TTL, null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  final void racing_updates_on_one_revision_have_exactly_one_winner() {
    String flowId = created(0, "start");

    List<Boolean> results = Race.run(16, WAIT,
        i -> () -> ledger().tryUpdate(flowId, state(flowId, 1, "writer-" + i), 0, TTL, null));

    assertThat(results).containsOnlyOnce(true);
    assertThat(ledger().load(flowId)).contains(state(flowId, 1, "writer-" + results.indexOf(true)));
  }

  @Test
  final void an_update_under_a_lease_succeeds_only_for_its_unexpired_holder() {
    String flowId = created(0, "start");
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).isTrue();

    assertThat(ledger().tryUpdate(flowId, state(flowId, 1, "by-b"), 0, TTL, "worker-b")).isFalse();
    assertThat(ledger().tryUpdate(flowId, state(flowId, 1, "by-a"), 0, TTL, "worker-a")).isTrue();

    clock().advance(LEASE);
    assertThat(ledger().tryUpdate(flowId, state(flowId, 2, "late-a"), 1, TTL, "worker-a"))
        .as("the lease expired at exactly its expiry")
        .isFalse();
    assertThat(ledger().load(flowId)).contains(state(flowId, 1, "by-a"));
  }

  @Test
  final void an_update_with_a_lease_id_fails_when_no_lease_is_held() {
    String flowId = created(0, "start");

    assertThat(ledger().tryUpdate(flowId, state(flowId, 1, "x"), 0, TTL, "worker-a")).isFalse();
  }

  @Test
  final void an_update_sets_a_new_time_to_live() {
    String flowId = newFlowId();
    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "x"), Duration.ofMinutes(1))).isTrue();
    assertThat(ledger().tryUpdate(flowId, state(flowId, 1, "y"), 0, Duration.ofMinutes(10), null)).isTrue();

    clock().advance(Duration.ofMinutes(5));

    assertThat(ledger().load(flowId)).map(FlowState::body).contains("y");
  }

  // ------------------------------------------------------------------------------------------ leases

  @Test
  final void racing_acquirers_have_exactly_one_winner() {
    String flowId = created(0, "start");

    List<Boolean> results = Race.run(16, WAIT, i -> () -> ledger().tryAcquireLease(flowId, "worker-" + i, LEASE));

    assertThat(results).containsOnlyOnce(true);
    assertThat(ledger().observeLease(flowId))
        .isEqualTo(LeaseObservation.held("worker-" + results.indexOf(true), clock().instant().plus(LEASE)));
  }

  @Test
  final void a_lease_is_acquired_only_when_unowned_or_expired() {
    String flowId = created(0, "start");
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).isTrue();

    assertThat(ledger().tryAcquireLease(flowId, "worker-b", LEASE)).isFalse();
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).as("held, even by the same owner").isFalse();

    clock().advance(LEASE.minusSeconds(1));
    assertThat(ledger().tryAcquireLease(flowId, "worker-b", LEASE)).as("one second before expiry").isFalse();

    clock().advance(Duration.ofSeconds(1));
    assertThat(ledger().tryAcquireLease(flowId, "worker-b", LEASE)).as("at expiry").isTrue();
    assertThat(ledger().observeLease(flowId)).isEqualTo(LeaseObservation.held("worker-b", clock().instant().plus(LEASE)));
  }

  @Test
  final void a_lease_on_an_absent_flow_cannot_be_acquired() {
    assertThat(ledger().tryAcquireLease(newFlowId(), "worker-a", LEASE)).isFalse();
  }

  @Test
  final void a_lease_is_renewed_only_by_its_unexpired_owner() {
    String flowId = created(0, "start");
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).isTrue();

    assertThat(ledger().tryRenewLease(flowId, "worker-b", LEASE)).isFalse();
    clock().advance(Duration.ofSeconds(20));
    assertThat(ledger().tryRenewLease(flowId, "worker-a", Duration.ofSeconds(40))).isTrue();
    assertThat(ledger().observeLease(flowId))
        .isEqualTo(LeaseObservation.held("worker-a", clock().instant().plusSeconds(40)));

    clock().advance(Duration.ofSeconds(40));
    assertThat(ledger().tryRenewLease(flowId, "worker-a", LEASE)).as("expired").isFalse();
  }

  @Test
  final void a_lease_is_released_only_by_its_owner() {
    String flowId = created(0, "start");
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).isTrue();
    LeaseObservation held = ledger().observeLease(flowId);

    assertThat(ledger().releaseLease(flowId, "worker-b")).isFalse();
    assertThat(ledger().observeLease(flowId)).isEqualTo(held);

    assertThat(ledger().releaseLease(flowId, "worker-a")).isTrue();
    assertThat(ledger().observeLease(flowId)).isEqualTo(LeaseObservation.unheld());
    assertThat(ledger().tryAcquireLease(flowId, "worker-b", LEASE)).isTrue();
  }

  @Test
  final void an_owner_releases_its_own_expired_lease_and_nobody_elses() {
    String flowId = created(0, "start");
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).isTrue();
    clock().advance(LEASE.plusSeconds(1)); // worker-a's lease has lapsed, nobody took it over

    assertThat(ledger().releaseLease(flowId, "worker-b")).as("not the owner").isFalse();
    assertThat(ledger().releaseLease(flowId, "worker-a")).as("the owner, lease expired").isTrue();

    assertThat(ledger().observeLease(flowId)).isEqualTo(LeaseObservation.unheld());
    assertThat(ledger().releaseLease(flowId, "worker-a")).as("nothing left to release").isFalse();
    assertThat(ledger().load(flowId)).map(FlowState::body).contains("start");
  }

  @Test
  final void observe_lease_reports_the_persisted_owner_and_expiry_verbatim_and_unheld_when_none() {
    String flowId = created(0, "start");
    assertThat(ledger().observeLease(newFlowId())).as("absent flow").isEqualTo(LeaseObservation.unheld());
    assertThat(ledger().observeLease(flowId)).as("never leased").isEqualTo(LeaseObservation.unheld());

    Instant expiry = clock().instant().plus(LEASE);
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", LEASE)).isTrue();
    assertThat(ledger().observeLease(flowId)).isEqualTo(LeaseObservation.held("worker-a", expiry));

    clock().advance(LEASE.multipliedBy(2));
    assertThat(ledger().observeLease(flowId))
        .as("an expired lease is still reported as persisted, not judged")
        .isEqualTo(LeaseObservation.held("worker-a", expiry));
  }

  @Test
  final void a_waiter_tells_a_live_holder_from_a_dead_one_by_observing_the_lease() {
    String flowId = created(0, "start");
    assertThat(ledger().tryAcquireLease(flowId, "live", LEASE)).isTrue();
    LeaseObservation first = ledger().observeLease(flowId);
    clock().advance(Duration.ofSeconds(10));
    assertThat(ledger().tryRenewLease(flowId, "live", LEASE)).isTrue();
    assertThat(ledger().observeLease(flowId)).as("a live holder's renewal changes the expiry").isNotEqualTo(first);

    String abandoned = created(0, "start");
    assertThat(ledger().tryAcquireLease(abandoned, "dead", LEASE)).isTrue();
    LeaseObservation dead = ledger().observeLease(abandoned);
    clock().advance(Duration.ofSeconds(10));
    assertThat(ledger().observeLease(abandoned)).as("a dead holder's lease never changes").isEqualTo(dead);
    clock().set(((LeaseObservation.Held) dead).expiresAt());
    assertThat(ledger().tryAcquireLease(abandoned, "waiter", LEASE)).as("waited out to its persisted expiry").isTrue();
  }

  // ------------------------------------------------------------------------------------------ TTL, delete, purge

  @Test
  final void a_flow_past_its_time_to_live_is_absent_to_every_operation() {
    String flowId = newFlowId();
    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "x"), Duration.ofMinutes(1))).isTrue();
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", Duration.ofMinutes(5))).isTrue();

    clock().advance(Duration.ofMinutes(1));

    assertThat(ledger().load(flowId)).isEmpty();
    assertThat(ledger().observeLease(flowId)).isEqualTo(LeaseObservation.unheld());
    assertThat(ledger().tryUpdate(flowId, state(flowId, 1, "y"), 0, TTL, null)).isFalse();
    assertThat(ledger().tryRenewLease(flowId, "worker-a", LEASE)).isFalse();
    assertThat(ledger().tryAcquireLease(flowId, "worker-b", LEASE)).isFalse();
  }

  @Test
  final void an_expired_flow_can_be_created_again() {
    String flowId = newFlowId();
    assertThat(ledger().tryCreate(flowId, state(flowId, 3, "old"), Duration.ofMinutes(1))).isTrue();
    assertThat(ledger().tryAcquireLease(flowId, "worker-a", Duration.ofMinutes(5))).isTrue();
    clock().advance(Duration.ofMinutes(1));

    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "new"), TTL)).isTrue();

    assertThat(ledger().load(flowId)).contains(state(flowId, 0, "new"));
    assertThat(ledger().observeLease(flowId)).as("the old flow's lease is gone").isEqualTo(LeaseObservation.unheld());
  }

  @Test
  final void expired_flows_are_purged_in_bounded_batches_and_live_ones_stay() {
    for (int i = 0; i < 5; i++) {
      String flowId = newFlowId();
      assertThat(ledger().tryCreate(flowId, state(flowId, 0, "short"), Duration.ofMinutes(1))).isTrue();
    }
    String live = created(0, "long");
    clock().advance(Duration.ofMinutes(2));

    assertThat(ledger().purgeExpired(2)).isEqualTo(2);
    assertThat(ledger().purgeExpired(2)).isEqualTo(2);
    assertThat(ledger().purgeExpired(2)).isEqualTo(1);
    assertThat(ledger().purgeExpired(2)).isZero();
    assertThat(ledger().load(live)).map(FlowState::body).contains("long");
  }

  @Test
  final void deleting_an_expired_flow_reports_it_absent_and_removes_it() {
    String flowId = newFlowId();
    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "x"), Duration.ofMinutes(1))).isTrue();
    clock().advance(Duration.ofMinutes(1));

    assertThat(ledger().tryDelete(flowId)).as("an expired flow is absent").isFalse();

    assertThat(ledger().purgeExpired(10)).as("already deleted, nothing left to purge").isZero();
    assertThat(ledger().load(flowId)).isEmpty();
    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "again"), TTL)).isTrue();
  }

  @Test
  final void delete_removes_a_present_flow_and_reports_an_absent_one() {
    String flowId = created(0, "x");

    assertThat(ledger().tryDelete(flowId)).isTrue();
    assertThat(ledger().load(flowId)).isEmpty();
    assertThat(ledger().tryDelete(flowId)).isFalse();
    assertThat(ledger().tryDelete(newFlowId())).isFalse();
  }

  // ------------------------------------------------------------------------------------------ unreadable

  @Test
  final void malformed_content_is_unreadable_never_absent() {
    String flowId = newFlowId();
    plantRaw(flowId, 1, "\u0000{not a flow state".getBytes(StandardCharsets.UTF_8), TTL);

    assertUnreadable(flowId, Reason.MALFORMED);
  }

  @Test
  final void content_with_an_unknown_schema_version_is_unreadable_never_absent() {
    String flowId = newFlowId();
    plantRaw(flowId, 1, codec().encode(new FlowState<>(flowId, 1, UNKNOWN_SCHEMA_VERSION, "future")), TTL);

    assertUnreadable(flowId, Reason.UNKNOWN_SCHEMA_VERSION);
  }

  @Test
  final void content_whose_revision_differs_from_the_stored_revision_is_unreadable_never_absent() {
    String flowId = newFlowId();
    plantRaw(flowId, 1, codec().encode(state(flowId, 2, "x")), TTL);

    assertUnreadable(flowId, Reason.REVISION_MISMATCH);
  }

  @Test
  final void content_naming_another_flow_is_unreadable_never_absent() {
    String flowId = newFlowId();
    plantRaw(flowId, 1, codec().encode(state(newFlowId(), 1, "x")), TTL);

    assertUnreadable(flowId, Reason.FLOW_ID_MISMATCH);
  }

  @Test
  final void an_unreadable_flow_can_still_be_leased_and_deleted() {
    String flowId = newFlowId();
    plantRaw(flowId, 1, "garbage".getBytes(StandardCharsets.UTF_8), TTL);

    assertThat(ledger().tryAcquireLease(flowId, "operator", LEASE)).isTrue();
    assertThat(ledger().tryDelete(flowId)).isTrue();
    assertThat(ledger().load(flowId)).isEmpty();
  }

  // ------------------------------------------------------------------------------------------ budget

  @Test
  final void validate_create_enforces_the_budget_and_writes_nothing() {
    String flowId = newFlowId();
    FlowState<String> small = state(flowId, 0, "small");
    FlowState<String> huge = state(flowId, 0, "x".repeat(BUDGET));

    ledger().validateCreate(flowId, small, TTL);
    assertThatThrownBy(() -> ledger().validateCreate(flowId, huge, TTL))
        .isInstanceOfSatisfying(FlowStateTooLargeException.class, e -> {
          assertThat(e.flowId()).isEqualTo(flowId);
          assertThat(e.budgetBytes()).isEqualTo(BUDGET);
          assertThat(e.sizeBytes()).isEqualTo(codec().encode(huge).length);
          assertThat(e).hasMessageContaining(String.valueOf(BUDGET))
              .hasMessageContaining(String.valueOf(e.sizeBytes()));
        });

    assertThat(ledger().load(flowId)).isEmpty();
  }

  @Test
  final void real_writes_enforce_the_budget_and_leave_the_stored_state_alone() {
    String flowId = newFlowId();
    FlowState<String> huge = state(flowId, 0, "x".repeat(BUDGET));
    assertThatThrownBy(() -> ledger().tryCreate(flowId, huge, TTL)).isInstanceOf(FlowStateTooLargeException.class);
    assertThat(ledger().load(flowId)).isEmpty();

    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "small"), TTL)).isTrue();
    assertThatThrownBy(() -> ledger().tryUpdate(flowId, state(flowId, 1, "y".repeat(BUDGET)), 0, TTL, null))
        .isInstanceOf(FlowStateTooLargeException.class);
    assertThat(ledger().load(flowId)).contains(state(flowId, 0, "small"));
  }

  @Test
  final void the_budget_is_the_ledgers_own_setting() {
    FlowLedger<String> roomy = newLedger(clock(), 4 * BUDGET);
    String flowId = newFlowId();

    assertThat(roomy.tryCreate(flowId, state(flowId, 0, "x".repeat(BUDGET)), TTL)).isTrue();
    assertThat(roomy.load(flowId)).map(FlowState::body).map(String::length).isEqualTo(Optional.of(BUDGET));
  }

  @Test
  final void invalid_arguments_are_refused_with_their_name() {
    String flowId = newFlowId();
    assertThatThrownBy(() -> ledger().load(" ")).hasMessageContaining("flowId");
    assertThatThrownBy(() -> ledger().load("f".repeat(FlowLedger.MAX_FLOW_ID_LENGTH + 1)))
        .hasMessageContaining("flowId");
    assertThatThrownBy(() -> ledger().tryCreate(flowId, state(flowId, 0, "x"), Duration.ZERO))
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> ledger().tryAcquireLease(flowId, "", LEASE)).hasMessageContaining("leaseId");
    assertThatThrownBy(() -> ledger().tryAcquireLease(flowId, "a", Duration.ofSeconds(-1)))
        .hasMessageContaining("leaseDuration");
  }

  @Test
  final void the_longest_flow_and_lease_ids_are_stored_intact() {
    String flowId = UUID.randomUUID() + "f".repeat(FlowLedger.MAX_FLOW_ID_LENGTH - 36);
    String leaseId = "l".repeat(FlowLedger.MAX_LEASE_ID_LENGTH);
    assertThat(ledger().tryCreate(flowId, state(flowId, 0, "x"), TTL)).isTrue();
    assertThat(ledger().tryAcquireLease(flowId, leaseId, LEASE)).isTrue();

    assertThat(ledger().load(flowId)).map(FlowState::flowId).contains(flowId);
    assertThat(ledger().observeLease(flowId)).isEqualTo(LeaseObservation.held(leaseId, clock().instant().plus(LEASE)));
  }
}
