package dev.outbox4j.internal;

import dev.outbox4j.Sleeper;
import dev.outbox4j.spi.DeliveryOutcome;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Tells an outage of the transport from failures of single messages, and paces the relay while the transport is down.
 * Not API.
 *
 * <h2>Why it exists</h2>
 * A retry budget is meant for poison: a message the broker will never take. When the broker itself is away, every
 * entry fails alike, and charging those failures to the entries would quarantine every key's head within one retry
 * budget, after which each key stays blocked until an operator acts. So a failure is charged to an entry only when it
 * is specific to that entry; an outage is charged to nobody: the entries are handed back uncharged
 * ({@link dev.outbox4j.spi.OutboxStore#postpone}) and the relay pauses.
 *
 * <h2>How an outage is recognised</h2>
 * After a pass, over the outcomes of its deliveries, the transport is judged down when
 * <ul>
 *   <li>the transport said so ({@link DeliveryOutcome#unavailable}) and nothing was confirmed, or
 *   <li>nothing was confirmed and at least two different entries failed retryably (a whole batch failing), or
 *   <li>nothing has been confirmed across passes while {@value #STREAK_ENTRIES} different entries failed retryably in a
 *       row (a trickle of single-entry batches), or
 *   <li>it was already down and this pass confirmed nothing either.
 * </ul>
 * One confirmation ends an outage. Entries of one key are never in one batch, so "different entries" also means
 * different keys. A failure the transport flags as an outage is never charged, even in a pass that confirmed others.
 *
 * <h2>Pacing</h2>
 * While down, a pass claims at most {@value #PROBE_SIZE} entries (a probe), and the background worker (and
 * {@code drain}) pauses between passes through the injected {@link Sleeper}: exponential from the base, doubling, capped,
 * with equal jitter (half fixed, half random) so a fleet of relays neither hammers a recovering broker nor returns in
 * lockstep. Postponed entries come back one unjittered step later, which is after the pause: so the next probe reaches
 * further entries, and a few entries that always fail cannot keep the gate shut over the rest of the backlog.
 *
 * <p>Thread-safe: the judgement is synchronized; the pause itself is not, so workers pause side by side.
 */
final class OutageGate {
  /** Entries claimed by a pass while the transport is down. */
  static final int PROBE_SIZE = 5;
  /** Different entries failing in a row, with no confirmation, that count as an outage. */
  static final int STREAK_ENTRIES = 3;

  private final Duration base;
  private final Duration cap;
  private final RandomGenerator random;
  private final Sleeper sleeper;
  private final RelayLog.Streak log;
  private final Set<UUID> failingInARow = new HashSet<>();
  private boolean down;
  private int outagePasses;

  OutageGate(RelaySettings settings) {
    this(settings.outageBase(), settings.outageCap(), settings.random(), settings.sleeper(), settings.clock());
  }

  OutageGate(Duration base, Duration cap, RandomGenerator random, Sleeper sleeper, Clock clock) {
    this.base = base;
    this.cap = cap;
    this.random = random;
    this.sleeper = sleeper;
    this.log = new RelayLog.Streak("transport", clock);
  }

  /** @return how many entries the next pass may claim */
  synchronized int claimLimit(int batchSize) {
    return down ? Math.min(batchSize, PROBE_SIZE) : batchSize;
  }

  /** @return {@code true} while the transport is judged down */
  synchronized boolean isDown() {
    return down;
  }

  /**
   * Judges a finished pass.
   *
   * @param confirmed deliveries the transport confirmed in the pass
   * @param retryable the pass's deliveries that failed retryably, with their outcomes
   * @return {@code true} when the pass's retryable failures are an outage, to be charged to nobody
   */
  synchronized boolean judge(int confirmed, List<Failure> retryable) {
    if (confirmed > 0) {
      failingInARow.clear();
      if (down) {
        down = false;
        outagePasses = 0;
        log.recovered();
      }
      return false;
    }
    if (retryable.isEmpty()) {
      return false; // nothing answered retryably (permanent failures only): says nothing about the transport
    }
    boolean flagged = false;
    for (Failure failure : retryable) {
      if (!down) {
        failingInARow.add(failure.entryId()); // not while down: the set would grow with the backlog
      }
      flagged |= failure.outcome().transportUnavailable();
    }
    boolean outage = down || flagged || retryable.size() >= 2 || failingInARow.size() >= STREAK_ENTRIES;
    if (outage) {
      failingInARow.clear();
      down = true;
      outagePasses++;
      log.failed(retryable.get(0).outcome().reason() + " (" + retryable.size() + " of the pass's deliveries)", null);
    }
    return outage;
  }

  /** @return the unjittered pause step of the current outage: how long postponed entries stay back */
  synchronized Duration step() {
    int doublings = Math.max(0, Math.min(outagePasses - 1, 40));
    Duration step = base;
    for (int i = 0; i < doublings && step.compareTo(cap) < 0; i++) {
      step = step.multipliedBy(2);
    }
    return step.compareTo(cap) > 0 ? cap : step;
  }

  /** @return the next pause: between half the step and the step */
  Duration nextPause() {
    Duration step = step();
    long half = step.toNanos() / 2;
    return Duration.ofNanos(half + (long) (half * Math.min(Math.max(random.nextDouble(), 0.0), 1.0)));
  }

  /**
   * Pauses through the sleeper when the transport is down; returns at once otherwise.
   *
   * @throws InterruptedException when the pause was interrupted (the relay is closing)
   */
  void pauseIfDown() throws InterruptedException {
    if (isDown()) {
      sleeper.sleep(nextPause());
    }
  }

  /**
   * A retryable failure of one delivery.
   *
   * @param entryId the entry
   * @param outcome what the transport answered (or the relay concluded)
   */
  record Failure(UUID entryId, DeliveryOutcome.Retryable outcome) {}
}
