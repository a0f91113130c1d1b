package dev.outbox4j.chaos;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What a chaos run found, computed from outside the library: what the writers committed (and in which order, from
 * {@link CommitRecord}), what they rolled back, what the consumer received (in arrival order), what the outbox table
 * still holds, and what the relays printed. Immutable.
 *
 * <p>Order is judged against commit order, per key: the first arrival of a message is a violation when a message of
 * its key committed after it has already arrived. A repeated arrival is a duplicate (at-least-once delivery allows
 * them); a duplicate that arrives after a later message of its key is counted apart as a late copy.
 *
 * @param label database / transport / form, then / claim strategy unless it is leased rows
 * @param committed messages committed
 * @param rolledBack transactions rolled back
 * @param received arrivals, duplicates included
 * @param lost committed but never received
 * @param vanished lost although the outbox records them as delivered (a lost message, not a slow one)
 * @param rolledBackDelivered rolled back and yet received
 * @param unknownDelivered received, neither committed nor rolled back (invented)
 * @param orderViolations first arrivals after a later-committed message of their key
 * @param duplicates arrivals beyond the first of a message
 * @param lateCopies duplicates that arrived after a later message of their key
 * @param stuck entries still waiting in the outbox after the drain time
 * @param quarantined entries quarantined
 * @param claimsLost claim-lost reports of all relays
 * @param frozenRefused the frozen relay's first pass after it resumed: completions the store refused (claims lost)
 * @param frozenUnsent the same pass: expired claims the relay dropped without sending
 * @param relayKills SIGKILLs of relays
 * @param selfKills relays that SIGKILLed themselves between a confirmation and its record
 * @param relayCrashes relay processes that ended on their own, self-kills aside
 * @param abortedCopies copies the broker holds that the consumer never saw (aborted transactions'); -1 where the
 *     consumer has no such thing
 * @param seconds wall-clock length of the run
 * @param refusingPaused with a destination refusing everything: how often the relays paused it; -1 without one
 * @param refusingMaxAttempts with a destination refusing everything: the most attempts charged to one of its entries;
 *     -1 without one
 * @param refusingRefused with a destination refusing everything: deliveries to it the relays' transport refused; -1
 *     without one
 * @param statementFailures with the relays behind a pooler: relay errors about server-side prepared statements
 *     ({@code prepared statement "S_3" does not exist}, {@code ... already exists}, a bind message for another
 *     client's statement), each a failed claim or completion; -1 without a pooler
 * @param operator with an operator at work during the run: what it did, and what the judge made of its discards;
 *     {@code null} without one
 * @param combinedSteps with relays retiring a batch in the next claim's transaction
 *     ({@code JdbcOutboxStore.useOneCommitPerBatch}): how many such steps they took ({@code COMBINED_STEP} lines,
 *     every incarnation); -1 without it
 */
record ChaosReport(String label, long committed, long rolledBack, long received, long lost, long vanished,
    long rolledBackDelivered, long unknownDelivered, long orderViolations, long duplicates, long lateCopies,
    long stuck, long quarantined, long claimsLost, long frozenRefused, long frozenUnsent, int relayKills,
    int selfKills, int relayCrashes, long abortedCopies, long seconds, long refusingPaused, long refusingMaxAttempts,
    long refusingRefused,
    long statementFailures, @org.jspecify.annotations.Nullable OperatorFigures operator, long combinedSteps) {

  /**
   * What an operator did during the run, and how its discards came out.
   *
   * @param parked entries it parked
   * @param requeued entries it requeued (its final requeue of everything still parked included)
   * @param discarded entries it discarded (deleted by one of its calls), accepted as missing
   * @param deliveredAfterDiscard discarded entries that arrived at the consumer after their deletion: a discarded
   *     message delivered (it was in flight when the operator's call removed it)
   * @param deliveredBeforeDiscard discarded entries that had arrived before their deletion and never after: sent by a
   *     relay whose record of it was lost (killed, frozen, the database crashed), so the entry waited again when the
   *     operator discarded it, as at-least-once allows; or an entry in flight that landed just before
   * @param deletedBehindTheOperator outbox rows deleted outside every operator call (nothing else deletes within a run:
   *     delivered rows are kept for an hour); not accepted as missing
   * @param actions operator calls
   * @param failures operator calls that failed (the database was down)
   * @param lateCopiesOfParked messages with a late copy that the operator had parked at some time (a relay's
   *     completion lost to the park, and the entry sent again after its requeue), to tell that cause from others
   */
  record OperatorFigures(long parked, long requeued, long discarded, long deliveredAfterDiscard,
      long deliveredBeforeDiscard, long deletedBehindTheOperator, long actions, long failures,
      long lateCopiesOfParked) {}

  /**
   * How an operator's discards came out against the consumer's arrivals.
   *
   * @param discarded ids deleted within one of the operator's calls: accepted as missing
   * @param deliveredAfter of those, the ids that arrived at or after their deletion
   * @param deliveredBefore of those, the ids that arrived only before their deletion
   * @param deletedBehindTheOperator ids deleted outside every operator call
   * @param examples the first few discarded ids delivered after their deletion, described
   */
  record Discards(Set<UUID> discarded, long deliveredAfter, long deliveredBefore, long deletedBehindTheOperator,
      List<String> examples) {}

  /**
   * Judges an operator's discards: a row deleted within the time window of one of its calls was discarded by it
   * (nothing else deletes); a discarded message must never be delivered after its deletion.
   *
   * @param deletedAt every deleted outbox row's id and deletion time
   * @param operatorCalls the windows of the operator's calls that may delete
   * @param arrivals the consumer's arrival times per message id
   * @return the discards' figures
   */
  static Discards judgeDiscards(Map<UUID, java.time.Instant> deletedAt, List<ChaosOperator.Window> operatorCalls,
      Map<UUID, List<java.time.Instant>> arrivals) {
    Set<UUID> discarded = new LinkedHashSet<>();
    long after = 0;
    long before = 0;
    long behind = 0;
    List<String> examples = new ArrayList<>();
    for (Map.Entry<UUID, java.time.Instant> deletion : deletedAt.entrySet()) {
      java.time.Instant at = deletion.getValue();
      if (operatorCalls.stream().noneMatch(window -> window.contains(at))) {
        behind++;
        continue;
      }
      discarded.add(deletion.getKey());
      List<java.time.Instant> arrived = arrivals.getOrDefault(deletion.getKey(), List.of());
      java.util.Optional<java.time.Instant> late = arrived.stream().filter(time -> !time.isBefore(at)).findFirst();
      if (late.isPresent()) {
        after++;
        if (examples.size() < 10) {
          examples.add("delivered after discard: " + deletion.getKey() + " deleted at " + at + ", arrived at "
              + late.get() + " (" + arrived.size() + " arrival(s))");
        }
      } else if (!arrived.isEmpty()) {
        before++;
      }
    }
    return new Discards(discarded, after, before, behind, examples);
  }

  /**
   * What the consumer's arrivals show against the commit record.
   *
   * @param missing committed messages never received
   * @param rolledBackDelivered rolled back and yet received
   * @param unknownDelivered received, neither committed nor rolled back
   * @param orderViolations first arrivals after a later-committed message of their key
   * @param duplicates arrivals beyond the first of a message
   * @param lateCopies duplicates that arrived after a later message of their key
   * @param committed messages committed
   * @param examples the first few order violations, described
   * @param lateCopied the messages of which a late copy arrived
   */
  record Delivery(Set<UUID> missing, long rolledBackDelivered, long unknownDelivered, long orderViolations,
      long duplicates,
      long lateCopies, long committed, List<String> examples, Set<UUID> lateCopied) {
    /** @return committed messages never received */
    long lost() {
      return missing.size();
    }
  }

  /**
   * @param commitOrder every committed message per key, in commit order
   * @param rolledBack ids of rolled-back messages
   * @param received arrivals in order
   * @return the delivery figures
   */
  static Delivery judge(Map<String, List<UUID>> commitOrder, Set<UUID> rolledBack, List<UUID> received) {
    Map<UUID, String> keyOf = new HashMap<>();
    Map<UUID, Integer> rankOf = new HashMap<>();
    commitOrder.forEach((key, ids) -> {
      for (int i = 0; i < ids.size(); i++) {
        keyOf.put(ids.get(i), key);
        rankOf.put(ids.get(i), i);
      }
    });
    Set<UUID> seen = new HashSet<>();
    Map<String, Integer> highest = new HashMap<>();
    long violations = 0;
    long duplicates = 0;
    long lateCopies = 0;
    long rolledBackDelivered = 0;
    long unknown = 0;
    List<String> examples = new ArrayList<>();
    Set<UUID> lateCopied = new LinkedHashSet<>();
    long arrivals = 0;
    for (UUID id : received) {
      arrivals++;
      boolean first = seen.add(id);
      String key = keyOf.get(id);
      if (key == null) {
        if (first) {
          if (rolledBack.contains(id)) {
            rolledBackDelivered++;
          } else {
            unknown++;
          }
        }
        continue;
      }
      int rank = rankOf.get(id);
      int before = highest.getOrDefault(key, -1);
      if (!first) {
        duplicates++;
        if (rank < before) {
          lateCopies++;
          lateCopied.add(id);
          if (examples.size() < 10) {
            examples.add("late copy, key " + key + ": " + id + " (commit rank " + rank + ") arrived again after rank "
                + before + " (" + commitOrder.get(key).get(before) + "), arrival " + arrivals);
          }
        }
      } else if (rank < before) {
        violations++;
        if (examples.size() < 10) {
          examples.add("order violation, key " + key + ": " + id + " (commit rank " + rank + ") arrived after rank " + before + " ("
              + commitOrder.get(key).get(before) + "), arrival " + arrivals);
        }
      }
      highest.put(key, Math.max(before, rank));
    }
    Set<UUID> missing = new LinkedHashSet<>(keyOf.keySet());
    missing.removeAll(seen);
    return new Delivery(missing, rolledBackDelivered, unknown, violations, duplicates, lateCopies,
        keyOf.size(), examples, lateCopied);
  }

  /**
   * @return whether every promise held: nothing lost, invented, reordered, stuck or quarantined; into Kafka's
   *     transactional mode, also no copy read committed; behind a pooler, no prepared-statement failure; with an
   *     operator, no discarded message delivered after its discard. Whether a refusing destination was paused
   *     (which needs it to have refused often enough) is judged by the test, as the freeze's precondition is. Whether a freeze had relay 0's claims taken over (the
   *     scenario's precondition for fencing, shown as {@code frozenRelay(refused, unsent)}) is judged by the test.
   */
  boolean kept() {
    return lost == 0 && vanished == 0 && rolledBackDelivered == 0 && unknownDelivered == 0 && orderViolations == 0
        && lateCopies == 0 && stuck == 0 && quarantined == 0
        && (!exactlyOnce() || duplicates == 0) && statementFailures <= 0
        && (operator == null || operator.deliveredAfterDiscard() == 0);
  }

  /** @return whether the run went into Kafka's transactional mode, which promises exactly once to committed readers */
  private boolean exactlyOnce() {
    return label.contains("/kafka-transactional/");
  }

  /** @return the one-line summary the docs quote */
  String summary() {
    return "chaos " + label + ": committed=" + committed + " rolledBack=" + rolledBack + " received=" + received
        + " lost=" + lost + " (marked delivered " + vanished + ") rolledBackDelivered=" + rolledBackDelivered
        + " invented=" + unknownDelivered
        + " orderViolations=" + orderViolations + " stuck=" + stuck + " quarantined=" + quarantined
        + " claimsLost=" + claimsLost + " frozenRelay(refused=" + frozenRefused + " unsent=" + frozenUnsent
        + ") duplicates=" + duplicates
        + " lateCopies=" + lateCopies + " relayKills=" + relayKills + " selfKills=" + selfKills
        + " kills=" + (relayKills + selfKills) + " relayCrashes=" + relayCrashes
        + (abortedCopies < 0 ? "" : " abortedCopies=" + abortedCopies)
        + (refusingPaused < 0 ? "" : " refusingDestination(refused=" + refusingRefused + " paused=" + refusingPaused
            + " maxAttempts=" + refusingMaxAttempts + ")")
        + (statementFailures < 0 ? "" : " statementFailures=" + statementFailures)
        + (combinedSteps < 0 ? "" : " combinedSteps=" + combinedSteps)
        + (operator == null ? "" : " operator(actions=" + operator.actions() + " failed=" + operator.failures()
            + " parked=" + operator.parked() + " requeued=" + operator.requeued() + " discarded="
            + operator.discarded() + " deliveredAfterDiscard=" + operator.deliveredAfterDiscard()
            + " deliveredBeforeDiscard=" + operator.deliveredBeforeDiscard() + " deletedBehindTheOperator="
            + operator.deletedBehindTheOperator() + " lateCopiesOfParked=" + operator.lateCopiesOfParked() + ")")
        + " seconds=" + seconds + (kept() ? " PASS" : " FAIL");
  }
}
