package dev.outbox4j.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Judges whether a destination's retryable failures are its messages' faults or its own outage, from the evidence of
 * its recent outcomes across passes. Not API.
 *
 * <h2>Why a window of evidence, not one pass</h2>
 * Only a confirmation shows that a destination takes messages, and only a confirmation of <em>another</em> message,
 * around the time one failed, shows that the failure is that message's own. One pass rarely holds that evidence: a
 * destination fed by one key has one entry to try per pass, so "two entries failed in one pass" never happens in its
 * outage and its head was charged until quarantined; and a destination that refuses some messages and takes the rest
 * (the demo's {@code legacy-erp}) often has a pass holding only refusals, which was taken for an outage, so it flapped
 * paused and resumed and its refused messages were never charged. Status codes are no better evidence: that endpoint
 * answers 503 to the messages it refuses. So each destination keeps, across passes: when it last confirmed a message
 * (when the answer arrived, not when its pass recorded it: a pass that stood still in between must not make an old
 * confirmation look recent), since when it has been failing, and which entries failed since its last confirmation; this relay also remembers when
 * each entry last failed.
 *
 * <h2>The rule</h2>
 * A retryable failure of message M, in a pass that confirmed nothing of M's destination, is
 * <ul>
 *   <li><b>charged to M</b> when the destination confirmed another message within the window and after M's previous
 *       try; on M's first try (none known), when M is the only failure since that confirmation. A pass that confirmed
 *       a message of the destination charges every failure of it;
 *   <li><b>an outage</b> (charged to nobody, the destination paused) when the destination is paused already, the
 *       transport said it is unavailable, it has confirmed nothing for the whole window while failing, or
 *       {@value #OUTAGE_ENTRIES} different entries failed since its last confirmation;
 *   <li>otherwise <b>undecided</b>: charged to nobody and tried again on the retry policy's schedule, the destination
 *       not paused. The evidence decides at the next try.
 * </ul>
 * So an outage charges nobody however few entries reach it: one key's head failing again and again with nothing
 * confirmed in between is never charged. A destination that keeps confirming some messages is never paused, and the
 * messages it refuses are charged and quarantined by the retry policy. A message failing alone on a destination that
 * takes nothing else cannot be told from an outage, and is treated as one until the destination confirms another.
 *
 * <p>The window is the outage pause cap: a destination counts as taking messages while it confirmed one within the
 * longest pause between two probes.
 *
 * <p>Thread-safe: every method is synchronized; the state is small and each call is short.
 */
final class DestinationHealth {
  /** Different entries failing since a destination's last confirmation that make an outage. */
  static final int OUTAGE_ENTRIES = 20;
  /** Entries whose last failure this relay remembers; the oldest are forgotten first. */
  static final int REMEMBERED_ENTRIES = 10_000;
  /** Destinations kept before those with no recent evidence are forgotten. */
  private static final int REMEMBERED_DESTINATIONS = 1_000;

  private final Duration window;
  private final Map<String, Evidence> destinations = new HashMap<>();
  /** When each entry last failed here, oldest first. */
  private final LinkedHashMap<UUID, Instant> lastFailed = new LinkedHashMap<>();

  /** One destination's evidence. Guarded by the enclosing instance. */
  private static final class Evidence {
    @Nullable Instant lastConfirmed;
    /** The first failure since the last confirmation (or since this relay first saw the destination). */
    @Nullable Instant failingSince;
    /** Entries that failed since the last confirmation, at most {@link #OUTAGE_ENTRIES}. */
    final Set<UUID> failedSince = new LinkedHashSet<>();
  }

  /**
   * A retryable failure to judge.
   *
   * @param entryId the entry
   * @param destination its destination
   * @param firstFailedAt the entry's first charged failure, if any (its previous try was no earlier)
   * @param transportUnavailable whether the transport said it cannot deliver at all
   */
  record Failure(UUID entryId, String destination, @Nullable Instant firstFailedAt, boolean transportUnavailable) {}

  /**
   * @param down the destinations whose failures in the pass are an outage
   * @param charged the entries whose failures are their own, to be charged an attempt
   */
  record Verdicts(Set<String> down, Set<UUID> charged) {}

  /** @param window how recent a confirmation must be to show that a destination takes messages */
  DestinationHealth(Duration window) {
    this.window = window;
  }

  /**
   * Takes in a finished pass and judges its retryable failures.
   *
   * @param confirmed the destinations that confirmed a delivery in the pass, with when their latest confirmation
   *     arrived (the confirmation counts from then, not from {@code now}: a pass that stood still before recording it
   *     must not make an old confirmation look recent)
   * @param failures the pass's retryable failures
   * @param paused whether a destination is paused for an outage
   * @param now the relay's clock
   * @return the verdicts
   */
  synchronized Verdicts judge(Map<String, Instant> confirmed, List<Failure> failures, Predicate<String> paused,
      Instant now) {
    for (Map.Entry<String, Instant> entry : confirmed.entrySet()) {
      Evidence evidence = destinations.computeIfAbsent(entry.getKey(), d -> new Evidence());
      Instant arrived = entry.getValue().isAfter(now) ? now : entry.getValue();
      if (evidence.lastConfirmed == null || arrived.isAfter(evidence.lastConfirmed)) {
        evidence.lastConfirmed = arrived;
      }
      evidence.failingSince = null;
      evidence.failedSince.clear();
    }
    Map<String, List<Failure>> byDestination = new LinkedHashMap<>();
    for (Failure failure : failures) {
      byDestination.computeIfAbsent(failure.destination(), d -> new ArrayList<>()).add(failure);
    }
    Set<String> down = new HashSet<>();
    Set<UUID> charged = new HashSet<>();
    for (Map.Entry<String, List<Failure>> entry : byDestination.entrySet()) {
      String destination = entry.getKey();
      List<Failure> failing = entry.getValue();
      if (confirmed.containsKey(destination)) {
        failing.stream().filter(f -> !f.transportUnavailable()).forEach(f -> charged.add(f.entryId()));
      } else if (judgeUnconfirmed(destination, failing, paused.test(destination), now, charged)) {
        down.add(destination);
      }
    }
    for (Failure failure : failures) {
      lastFailed.remove(failure.entryId());
      lastFailed.put(failure.entryId(), now);
    }
    forgetOld(now);
    return new Verdicts(down, charged);
  }

  /** @return {@code true} when the destination is down; otherwise adds the failures that are charged */
  private boolean judgeUnconfirmed(String destination, List<Failure> failing, boolean paused, Instant now,
      Set<UUID> charged) {
    Evidence evidence = destinations.computeIfAbsent(destination, d -> new Evidence());
    Set<UUID> before = Set.copyOf(evidence.failedSince);
    Set<UUID> inPass = new HashSet<>();
    boolean unavailable = false;
    for (Failure failure : failing) {
      inPass.add(failure.entryId());
      unavailable |= failure.transportUnavailable();
      if (evidence.failedSince.size() < OUTAGE_ENTRIES) {
        evidence.failedSince.add(failure.entryId());
      }
    }
    if (evidence.failingSince == null) {
      evidence.failingSince = now;
    }
    boolean down = paused || unavailable || evidence.failedSince.size() >= OUTAGE_ENTRIES
        || !now.isBefore(evidence.failingSince.plus(window));
    if (down) {
      return true;
    }
    Instant confirmedAt = evidence.lastConfirmed;
    if (confirmedAt == null || confirmedAt.isBefore(now.minus(window))) {
      return false; // nothing confirmed lately: undecided, all of them
    }
    for (Failure failure : failing) {
      Instant previous = previousTry(failure);
      boolean own = before.contains(failure.entryId()) ? false
          : previous != null ? confirmedAt.isAfter(previous)
          : before.isEmpty() && inPass.size() == 1;
      if (own) {
        charged.add(failure.entryId());
      }
    }
    return false;
  }

  /** @return the latest known earlier try of the failure's entry, or {@code null} */
  private @Nullable Instant previousTry(Failure failure) {
    Instant remembered = lastFailed.get(failure.entryId());
    Instant charged = failure.firstFailedAt();
    if (remembered == null) {
      return charged;
    }
    return charged == null || remembered.isAfter(charged) ? remembered : charged;
  }

  /**
   * Forgets the oldest entries beyond the bound (a forgotten entry is judged as on its first try, which charges no more
   * than knowing it would), and, once there are many, destinations with no recent evidence.
   */
  private void forgetOld(Instant now) {
    Iterator<UUID> entries = lastFailed.keySet().iterator();
    while (lastFailed.size() > REMEMBERED_ENTRIES && entries.hasNext()) {
      entries.next();
      entries.remove();
    }
    if (destinations.size() > REMEMBERED_DESTINATIONS) {
      Instant horizon = now.minus(window);
      destinations.values().removeIf(e -> e.failingSince == null
          && (e.lastConfirmed == null || e.lastConfirmed.isBefore(horizon)));
    }
  }
}
