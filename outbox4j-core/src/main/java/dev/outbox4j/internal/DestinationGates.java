package dev.outbox4j.internal;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OperatorPause;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Tells an outage of a destination from failures of single messages, and keeps a paused destination out of every
 * other destination's way. Not API.
 *
 * <h2>Why per destination</h2>
 * Faults live per destination: one webhook endpoint answers 503 while the next one is fine, one exchange is missing,
 * one broker of several is down. Judged for the whole relay, one refusing destination stopped them all. So each
 * destination has a gate of its own, and a destination's outage pauses that destination only; a whole transport that
 * is down pauses the destinations it serves, each through its own failures (the transport flags them
 * {@link DeliveryOutcome#unavailable}, so one failure each suffices).
 *
 * <h2>Why an outage is charged to nobody</h2>
 * A retry budget is meant for poison: a message the broker will never take. When a destination itself is away, every
 * entry fails alike, and charging those failures would quarantine every key's head within one retry budget. So a
 * failure is charged to an entry only when it is specific to that entry; an outage's failures are handed back
 * uncharged ({@link dev.outbox4j.spi.OutboxStore#postpone}).
 *
 * <h2>How a destination's outage is recognised</h2>
 * From the evidence of its outcomes across passes, by {@link DestinationHealth}: a destination that confirms nothing
 * over a window is down, also when only one entry can be tried per pass; one that keeps confirming some messages is not,
 * and the failures of the others are theirs. A failure neither side can claim yet is charged to nobody and tried again
 * on the retry policy's schedule. One confirmation ends an outage. A failure the transport flags as an outage is never
 * charged.
 *
 * <h2>While paused</h2>
 * Until its next probe is due it is left out of the claims ({@link ClaimStep#skippedDestinations}), so its backlog
 * waits untouched and costs the claims of every other destination nothing. Its entries that a claim returns anyway are
 * not sent: they are held back, uncharged, for a while longer than the pause ({@link #holdBack}), in one store call
 * per pass. Once its next
 * probe is due, up to {@value #PROBE_SIZE} of its claimed entries are sent as a probe; the pause between probes grows
 * from the base, doubling, to the cap, with equal jitter (half fixed, half random) so a fleet of relays neither hammers
 * a recovering destination nor returns in lockstep. A failed probe's entries wait as long as the held-back ones, so
 * successive probes reach different entries of the backlog.
 *
 * <h2>Paused by an operator</h2>
 * A destination an operator paused ({@link dev.outbox4j.spi.OutboxStore#pauseDestination}, read by the relay about once
 * a second) is held back like a paused one, but never probed: the operator, not a confirmation, ends its pause. Its
 * entries are left out of the claims; one claimed before the pause was read is held back for
 * {@link #OPERATOR_HOLD_BACK} only, so it comes back within seconds of a resume.
 *
 * <p>Gates exist only for destinations with failures: a destination whose deliveries are confirmed has none, so the
 * fast path of a healthy relay is one empty-map check per pass.
 *
 * <p>Thread-safe: every method is synchronized; the state is small and each call is short.
 */
final class DestinationGates {
  /** Entries of a paused destination sent by one probe. */
  static final int PROBE_SIZE = 5;
  /** How long the claimed entries of a destination an operator paused are held back: short, so a resume is quick. */
  static final Duration OPERATOR_HOLD_BACK = Duration.ofSeconds(5);
  /** The return times kept per paused destination: only the earliest one ahead is ever shown. */
  static final int RETURNS_KEPT = 16;

  private final Duration base;
  private final Duration cap;
  private final Duration lease;
  private final RandomGenerator random;
  private final Clock clock;
  private final RelayEvents events;
  private final DestinationHealth health;
  /** Destinations with failures, by name. */
  private final Map<String, Gate> gates = new HashMap<>();

  /** One destination's outage state. Guarded by the enclosing instance. */
  private final class Gate {
    final String destination;
    final RelayLog.Streak log;
    @Nullable Instant pausedSince;
    Instant nextProbeAt = Instant.MIN;
    /** Passes judged down since the pause began: the first sets the base pause, each later one doubles it. */
    int outagePasses;
    String lastError = "";
    /** When the probe under way was sent; {@code null} when none awaits its answers. */
    @Nullable Instant probeSentAt;
    /** When entries it held back or postponed come back, the earliest first; those past are dropped when read. */
    final java.util.NavigableSet<Instant> returns = new java.util.TreeSet<>();

    /** Notes when entries of it come back, keeping the earliest {@value DestinationGates#RETURNS_KEPT}. */
    void returning(Instant until, Instant now) {
      returns.headSet(now, true).clear();
      returns.add(until);
      if (returns.size() > RETURNS_KEPT) {
        returns.pollLast();
      }
    }

    Gate(String destination) {
      this.destination = destination;
      this.log = new RelayLog.Streak("destination '" + destination + "'", clock);
    }

    boolean paused() {
      return pausedSince != null;
    }
  }

  DestinationGates(RelaySettings settings, RelayEvents events) {
    this(settings.outageBase(), settings.outageCap(), settings.lease(), settings.random(), settings.clock(), events);
  }

  DestinationGates(Duration base, Duration cap, Duration lease, RandomGenerator random, Clock clock,
      RelayEvents events) {
    this.base = base;
    this.cap = cap;
    this.lease = lease;
    this.random = random;
    this.clock = clock;
    this.events = events;
    this.health = new DestinationHealth(cap);
  }

  /**
   * A pass's claims, sorted: those to send now, and those of paused destinations held back.
   *
   * @param send the claims to hand to the transport (flowing destinations, and the probes of paused ones)
   * @param heldBack the claims of paused destinations not sent in this pass, by destination
   */
  record Sorted(List<Claim> send, Map<String, HeldBack> heldBack) {}

  /**
   * Claims of one paused destination not sent in a pass.
   *
   * @param claims the claims
   * @param reason the reason recorded on them (why the destination is paused)
   * @param until when they become claimable again
   */
  record HeldBack(List<Claim> claims, String reason, Instant until) {}

  /**
   * Sorts a pass's claims. A paused destination whose probe is due gets up to {@value #PROBE_SIZE} of its claims sent;
   * its next probe then waits until the probe is judged (or, should that never happen, one lease).
   *
   * A destination an operator paused has all of its claims held back, with no probe.
   *
   * @param claims the pass's claims, in claim order
   * @param now the relay's clock
   * @param operatorPaused the destinations an operator paused, by name (as last read from the store)
   * @return what to send and what to hold back
   */
  synchronized Sorted sort(List<Claim> claims, Instant now, Map<String, OperatorPause> operatorPaused) {
    if (operatorPaused.isEmpty() && !anyPausedLocked()) {
      return new Sorted(claims, Map.of());
    }
    List<Claim> send = new ArrayList<>(claims.size());
    Map<String, List<Claim>> held = new LinkedHashMap<>();
    Map<String, List<Claim>> heldByOperator = new LinkedHashMap<>();
    Map<String, Integer> probes = new HashMap<>();
    for (Claim claim : claims) {
      String destination = claim.message().destination();
      Gate gate = gates.get(destination);
      if (operatorPaused.containsKey(destination)) {
        heldByOperator.computeIfAbsent(destination, d -> new ArrayList<>()).add(claim);
      } else if (gate == null || !gate.paused()) {
        send.add(claim);
      } else if (!now.isBefore(gate.nextProbeAt) && probes.getOrDefault(destination, 0) < PROBE_SIZE) {
        probes.merge(destination, 1, Integer::sum);
        send.add(claim);
      } else {
        held.computeIfAbsent(destination, d -> new ArrayList<>()).add(claim);
      }
    }
    Map<String, HeldBack> heldBack = new LinkedHashMap<>();
    for (Map.Entry<String, List<Claim>> entry : held.entrySet()) {
      Gate gate = gates.get(entry.getKey());
      // Before the provisional probe time below: entries held back beside a probe come back one cap after it.
      Instant until = holdBack(gate, now);
      gate.returning(until, now);
      heldBack.put(entry.getKey(), new HeldBack(entry.getValue(), heldBackReason(gate), until));
    }
    for (String destination : probes.keySet()) {
      Gate gate = gates.get(destination);
      gate.nextProbeAt = now.plus(lease); // provisional: the probe's judgement sets the real one
      gate.probeSentAt = now;
    }
    for (Map.Entry<String, List<Claim>> entry : heldByOperator.entrySet()) {
      heldBack.put(entry.getKey(), new HeldBack(entry.getValue(),
          operatorPaused.get(entry.getKey()).heldBackReason(), now.plus(OPERATOR_HOLD_BACK)));
    }
    return new Sorted(send, heldBack);
  }

  /**
   * Judges a finished pass, destination by destination: resumes those that confirmed a delivery, pauses those whose
   * failures are an outage.
   *
   * @param confirmed the destinations that confirmed a delivery in the pass, with when their latest confirmation
   *     arrived
   * @param retryable the pass's deliveries that failed retryably, with their outcomes
   * @return the destinations whose retryable failures are an outage (charged to nobody), and the entries whose failures
   *     are their own (charged an attempt); any other failure is undecided: charged to nobody, retried on schedule
   */
  synchronized DestinationHealth.Verdicts judge(Map<String, Instant> confirmed, List<Failure> retryable) {
    Instant now = clock.instant();
    for (Gate gate : gates.values()) {
      gate.probeSentAt = null; // the pass is over: every probe it sent has its answers
    }
    for (String destination : confirmed.keySet()) {
      flowing(destination, now);
    }
    List<DestinationHealth.Failure> evidence = new ArrayList<>(retryable.size());
    for (Failure failure : retryable) {
      evidence.add(new DestinationHealth.Failure(failure.entryId(), failure.destination(), failure.firstFailedAt(),
          failure.outcome().transportUnavailable()));
    }
    DestinationHealth.Verdicts verdicts = health.judge(confirmed, evidence, d -> {
      Gate gate = gates.get(d);
      return gate != null && gate.paused();
    }, now);
    Map<String, List<Failure>> byDestination = new LinkedHashMap<>();
    for (Failure failure : retryable) {
      if (verdicts.down().contains(failure.destination())) {
        byDestination.computeIfAbsent(failure.destination(), d -> new ArrayList<>()).add(failure);
      }
    }
    for (Map.Entry<String, List<Failure>> entry : byDestination.entrySet()) {
      outage(entry.getKey(), entry.getValue(), now);
    }
    return verdicts;
  }

  private void flowing(String destination, Instant now) {
    Gate gate = gates.remove(destination);
    if (gate != null && gate.paused()) {
      Duration pausedFor = Duration.between(gate.pausedSince, now);
      gate.log.recovered();
      events.emit(l -> l.onDestinationResumed(destination, pausedFor));
    }
  }

  /** Pauses a destination judged down, or extends its pause. */
  private void outage(String destination, List<Failure> failures, Instant now) {
    Gate gate = gates.computeIfAbsent(destination, Gate::new);
    gate.lastError = failures.get(0).outcome().reason();
    boolean pausing = !gate.paused();
    if (pausing) {
      gate.pausedSince = now;
      gate.outagePasses = 0;
    }
    gate.outagePasses++;
    gate.nextProbeAt = now.plus(nextPause(gate));
    gate.log.failed(gate.lastError + " (" + failures.size() + " of the pass's deliveries to it)", null);
    if (pausing) {
      DestinationStatus status = statusOf(gate, now);
      events.emit(l -> l.onDestinationPaused(status));
    }
  }

  /**
   * @param destination a destination with a delivery that failed in an outage
   * @param now the relay's clock
   * @return when that delivery's entry comes back: with the destination's held-back entries, one cap after its next
   *     probe (so the next probe reaches other entries), or one base pause from now for a destination that is not paused (a failure the transport flagged as an outage in a pass that confirmed others)
   */
  synchronized Instant outageUntil(String destination, Instant now) {
    Gate gate = gates.get(destination);
    if (gate == null || !gate.paused()) {
      return now.plus(base);
    }
    Instant until = holdBack(gate, now);
    gate.returning(until, now);
    return until;
  }

  /** @return {@code true} when some destination is paused */
  synchronized boolean anyPaused() {
    return anyPausedLocked();
  }

  private boolean anyPausedLocked() {
    for (Gate gate : gates.values()) {
      if (gate.paused()) {
        return true;
      }
    }
    return false;
  }

  /** @return the earliest next probe of a paused destination, if any is paused */
  synchronized Optional<Instant> earliestProbe() {
    return gates.values().stream().filter(Gate::paused).map(g -> g.nextProbeAt).min(Comparator.naturalOrder());
  }

  /**
   * @param operatorPaused the destinations an operator paused, by name
   * @return the paused destinations, by name, one status each: an operator's pause shown rather than an outage of the
   *     same destination
   */
  synchronized List<DestinationStatus> paused(Map<String, OperatorPause> operatorPaused) {
    Map<String, DestinationStatus> byName = new java.util.TreeMap<>();
    Instant now = clock.instant();
    gates.values().stream().filter(Gate::paused).forEach(gate -> byName.put(gate.destination, statusOf(gate, now)));
    for (OperatorPause pause : operatorPaused.values()) {
      byName.put(pause.destination(), new DestinationStatus(pause.destination(), DestinationStatus.Cause.OPERATOR,
          pause.pausedAt(), null, pause.heldBackReason(), 0));
    }
    return List.copyOf(byName.values());
  }

  private DestinationStatus statusOf(Gate gate, Instant now) {
    return new DestinationStatus(gate.destination, DestinationStatus.Cause.OUTAGE, gate.pausedSince,
        gate.nextProbeAt, gate.lastError, Math.max(0, gate.outagePasses - 1), nextSendAt(gate, now),
        gate.probeSentAt != null);
  }

  /**
   * When entries of a paused destination are next sent, as known now. While its probe is ahead, then. Once the probe is
   * due, the pass that finds an entry of it sends the probe (and moves the probe time ahead); so a probe that is due with
   * nothing sent means none of its entries could be claimed: the next goes when the first entry it holds back comes
   * back, or, holding none back, with the next entry written ({@code null}). Never a time in the past.
   */
  private static @Nullable Instant nextSendAt(Gate gate, Instant now) {
    if (gate.probeSentAt != null) {
      return null;
    }
    if (now.isBefore(gate.nextProbeAt)) {
      return gate.nextProbeAt;
    }
    gate.returns.headSet(now, true).clear();
    return gate.returns.isEmpty() ? null : gate.returns.first();
  }

  /** @return the pause before the next probe: between half the current step and the step */
  private Duration nextPause(Gate gate) {
    int doublings = Math.max(0, Math.min(gate.outagePasses - 1, 40));
    Duration step = base;
    for (int i = 0; i < doublings && step.compareTo(cap) < 0; i++) {
      step = step.multipliedBy(2);
    }
    step = step.compareTo(cap) > 0 ? cap : step;
    long half = step.toNanos() / 2;
    return Duration.ofNanos(half + (long) (half * Math.min(Math.max(random.nextDouble(), 0.0), 1.0)));
  }

  /**
   * How long a paused destination's entries are held back, and its entries that failed in the outage postponed: past
   * its next probe by the pause's cap. So the entries of a large backlog are claimed and held back again at most about
   * once per cap, not on every pass; they come back on their own within that bound once the destination has recovered;
   * and the entries a probe tried are not the only ones the next probe can reach, so a few entries that always fail
   * cannot keep the destination paused over the rest of its backlog.
   */
  private Instant holdBack(Gate gate, Instant now) {
    Instant probe = gate.nextProbeAt.isAfter(now) ? gate.nextProbeAt : now;
    return probe.plus(cap);
  }

  private static String heldBackReason(Gate gate) {
    return "destination '" + gate.destination + "' paused since " + gate.pausedSince + ": " + gate.lastError;
  }

  /**
   * A retryable failure of one delivery.
   *
   * @param entryId the entry
   * @param destination its destination
   * @param firstFailedAt the entry's first charged failure, if any
   * @param outcome what the transport answered (or the relay concluded)
   */
  record Failure(UUID entryId, String destination, @Nullable Instant firstFailedAt,
      DeliveryOutcome.Retryable outcome) {}
}
