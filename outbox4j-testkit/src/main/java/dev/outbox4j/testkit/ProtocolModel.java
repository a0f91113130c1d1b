package dev.outbox4j.testkit;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.spi.Claim;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * What the claim protocol promises, as a small model of its own that {@link ClaimProtocolProperty} checks a real store
 * against after every step. It knows each committed entry's key order and state, every claim ever handed out (a
 * {@link Hold}) and until when a copy of a send made under it may still land.
 *
 * <h2>Why a model of promises rather than a second store</h2>
 * The in-memory store is one of the stores under test, so it cannot be the oracle. The model does not decide which
 * entries a claim should return (that depends on limits, windows and, under concurrency, on the database's order); it
 * decides whether what a store did was <em>allowed</em>: an entry handed out must be waiting, its key's head or the
 * gap-free run behind it, under no live claim, with no copy of an earlier send of it or of its key's earlier entries
 * still able to land; a completion applies exactly when its claim is still the entry's current one; an operator action
 * touches no entry in flight. So every legal outcome of a race passes, and only an illegal one fails.
 *
 * <p>Not thread-safe: the property feeds it from the test thread after each step (a concurrent group finishes first).
 */
final class ProtocolModel {
  /** How long the modelled transport may take to answer: a failed or timed-out send's copy lands by its start plus this. */
  static final Duration ANSWER_TIME = Duration.ofSeconds(5);

  /** The model's states: {@link EntryStatus} with operator-waiting statuses merged and discard made explicit. */
  enum State {
    WAITING, AWAITING_OPERATOR, DELIVERED, DISCARDED;

    boolean undelivered() {
      return this == WAITING || this == AWAITING_OPERATOR;
    }
  }

  /** One committed entry. */
  static final class Entry {
    final UUID id;
    final @Nullable String key;
    final String destination;
    final String label;
    State state = State.WAITING;
    Instant notBefore;

    Entry(UUID id, @Nullable String key, String destination, String label, Instant notBefore) {
      this.id = id;
      this.key = key;
      this.destination = destination;
      this.label = label;
      this.notBefore = notBefore;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  /** One claim handed out, from the call that returned it until its outcome, takeover or expiry. */
  static final class Hold {
    final Claim claim;
    final String relay;
    final Instant claimedAt;
    /** Resolved (an outcome recorded or refused), taken over by a later claim, or cancelled by an operator. */
    boolean over;
    /** Until when a copy of a send under this claim may land; {@code null} when nothing sent under it can land. */
    @Nullable Instant landsBy;

    Hold(Claim claim, String relay, Instant claimedAt) {
      this.claim = claim;
      this.relay = relay;
      this.claimedAt = claimedAt;
      this.landsBy = claim.leaseUntil();
    }

    boolean live(Instant now) {
      return !over && now.isBefore(claim.leaseUntil());
    }
  }

  private final Map<UUID, Entry> entries = new LinkedHashMap<>();
  private final Map<String, List<Entry>> byKey = new LinkedHashMap<>();
  private final Set<UUID> rolledBack = new HashSet<>();
  private final List<Hold> holds = new ArrayList<>();
  private final Map<String, Integer> written = new LinkedHashMap<>();

  /** @return a violation of the named invariant, tagged {@code [invariant]} so that shrinking can tell failures apart */
  static String broken(String invariant, String violation) {
    return "[" + invariant + "] " + violation;
  }

  /** @return the model entry, labelled by key and position in it ({@code K1#2}) or as unkeyed ({@code u5}) */
  Entry committed(UUID id, @Nullable String key, String destination, Instant now) {
    String lane = key == null ? "u" : key + "#";
    int number = written.merge(lane, 1, Integer::sum);
    Entry entry = new Entry(id, key, destination, lane + number + ">" + destination, now);
    entries.put(id, entry);
    if (key != null) {
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(entry);
    }
    return entry;
  }

  void rolledBack(UUID id) {
    rolledBack.add(id);
  }

  Collection<Entry> entries() {
    return entries.values();
  }

  Set<UUID> rolledBackIds() {
    return rolledBack;
  }

  @Nullable Entry entry(UUID id) {
    return entries.get(id);
  }

  String label(UUID id) {
    Entry entry = entries.get(id);
    return entry != null ? entry.label : (rolledBack.contains(id) ? "rolled-back " : "unknown ") + id;
  }

  /** @return how many committed entries are not delivered or discarded */
  long undelivered() {
    return entries.values().stream().filter(e -> e.state.undelivered()).count();
  }

  // ------------------------------------------------------------------------------------------------ claims

  /**
   * Checks the claims one call returned and records them.
   *
   * @return the violations found, empty when the call was legal
   */
  List<String> claimed(String relay, List<Claim> claims, Instant now, int maxRun) {
    List<String> wrong = new ArrayList<>();
    Set<UUID> inCall = new HashSet<>();
    claims.forEach(c -> inCall.add(c.id()));
    if (inCall.size() != claims.size()) {
      wrong.add(broken("handed-out-not-waiting", relay + " got one entry twice in one claim"));
    }
    Map<String, List<Entry>> runs = new LinkedHashMap<>();
    for (Claim claim : claims) {
      Entry entry = entries.get(claim.id());
      if (entry == null) {
        wrong.add(broken("handed-out-not-waiting",
            relay + " was handed " + label(claim.id()) + ", which was never committed"));
        continue;
      }
      if (entry.state != State.WAITING) {
        wrong.add(broken("handed-out-not-waiting", relay + " was handed " + entry + ", which is " + entry.state));
      }
      if (entry.notBefore.isAfter(now)) {
        wrong.add(broken("handed-out-before-due",
            relay + " was handed " + entry + " before it is due at " + entry.notBefore));
      }
      for (Hold hold : holdsOf(entry)) {
        if (hold.live(now)) {
          wrong.add(broken("one-in-flight",
              relay + " was handed " + entry + " while " + hold.relay + " holds it until " + hold.claim.leaseUntil()));
        } else if (hold.landsBy != null && hold.landsBy.isAfter(now)) {
          wrong.add(broken("late-copy",
              relay + " was handed " + entry + " again while a copy of " + hold.relay + "'s send may land until "
              + hold.landsBy));
        }
      }
      if (entry.key != null) {
        runs.computeIfAbsent(entry.key, k -> new ArrayList<>()).add(entry);
      }
    }
    runs.forEach((key, run) -> wrong.addAll(checkRun(relay, key, run, inCall, now, maxRun)));
    for (Claim claim : claims) {
      Entry entry = entries.get(claim.id());
      if (entry != null) {
        holdsOf(entry).forEach(hold -> hold.over = true);
      }
      holds.add(new Hold(claim, relay, now));
    }
    return wrong;
  }

  private List<String> checkRun(String relay, String key, List<Entry> run, Set<UUID> inCall, Instant now, int maxRun) {
    List<String> wrong = new ArrayList<>();
    if (run.size() > maxRun) {
      wrong.add(broken("run-length",
          relay + " asked for runs of at most " + maxRun + " and got " + run + " of key " + key));
    }
    List<Entry> open = byKey.get(key).stream().filter(e -> e.state.undelivered()).toList();
    if (!open.subList(0, Math.min(run.size(), open.size())).equals(run)) {
      wrong.add(broken("run-prefix",
          relay + " got " + run + " of key " + key + ", which is not a gap-free prefix of its undelivered "
          + open));
    }
    Entry first = run.get(0);
    for (Entry earlier : byKey.get(key)) {
      if (earlier == first) {
        break;
      }
      // also when a discard of the key's last entry came between: the key keeps the bound for entries written later
      Instant landsBy = landsBy(earlier);
      if (landsBy != null && landsBy.isAfter(now)) {
        wrong.add(broken("late-copy", relay + " was handed " + first + " while a copy of " + earlier + " ("
            + earlier.state + ") may still land until " + landsBy + ": a late copy would overtake"));
      }
    }
    for (Entry other : byKey.get(key)) {
      if (inCall.contains(other.id)) {
        continue;
      }
      for (Hold hold : holdsOf(other)) {
        if (hold.live(now)) {
          wrong.add(broken("one-in-flight",
              relay + " was handed " + run + " of key " + key + " while " + hold.relay + " holds " + other
              + " of the same key until " + hold.claim.leaseUntil()));
        }
      }
    }
    return wrong;
  }

  /** @return the latest time a copy of any send of the entry may land, or {@code null} */
  @Nullable Instant landsBy(Entry entry) {
    Instant latest = null;
    for (Hold hold : holdsOf(entry)) {
      if (hold.landsBy != null && (latest == null || hold.landsBy.isAfter(latest))) {
        latest = hold.landsBy;
      }
    }
    return latest;
  }

  private List<Hold> holdsOf(Entry entry) {
    return holds.stream().filter(h -> h.claim.id().equals(entry.id)).toList();
  }

  /** @return the hold of a claim this model recorded */
  Hold holdOf(Claim claim) {
    return holds.stream().filter(h -> h.claim.equals(claim)).findFirst()
        .orElseThrow(() -> new IllegalStateException("not a recorded claim: " + claim));
  }

  /** @return whether the hold's completion must apply: its claim is the entry's current one and the entry waits */
  boolean current(Hold hold) {
    Entry entry = entries.get(hold.claim.id());
    return !hold.over && entry != null && entry.state == State.WAITING;
  }

  // ------------------------------------------------------------------------------------------------ outcomes

  /** How a relay ended a claim. */
  enum Outcome {
    DELIVERED, FAILED, POSTPONED, HELD_BACK, QUARANTINED, RELEASED
  }

  /**
   * Checks and records the outcomes of a relay's claims, in order.
   *
   * @param applied whether the store applied each hold's outcome (not lost)
   * @param due when a failed or postponed entry is due again (ignored for other outcomes)
   * @return the violations found
   */
  List<String> ended(List<Hold> ended, Function<Hold, Boolean> applied, Outcome outcome, Instant now, Instant due) {
    List<String> wrong = new ArrayList<>();
    Set<UUID> together = new HashSet<>();
    ended.forEach(h -> together.add(h.claim.id()));
    for (Hold hold : ended) {
      Entry entry = entries.get(hold.claim.id());
      boolean current = current(hold);
      boolean didApply = applied.apply(hold);
      String what = outcome.name().toLowerCase(java.util.Locale.ROOT);
      if (didApply && !current) {
        wrong.add(broken("completion-after-takeover",
            hold.relay + "'s " + what + " of " + entry + " applied although its claim "
            + (hold.over ? "was taken over" : "is gone") + " (entry " + (entry == null ? "?" : entry.state) + ")"));
      } else if (!didApply && current) {
        wrong.add(broken("refused-untaken-completion", hold.relay + "'s " + what + " of " + entry
            + " was refused although nobody took its claim over"));
      }
      hold.over = true;
      if (!didApply || entry == null) {
        if (outcome == Outcome.RELEASED || outcome == Outcome.HELD_BACK) {
          hold.landsBy = null;
        }
        continue;
      }
      switch (outcome) {
        case DELIVERED -> {
          hold.landsBy = null;
          entry.state = State.DELIVERED;
          if (entry.key != null) {
            for (Entry earlier : byKey.get(entry.key)) {
              if (earlier == entry) {
                break;
              }
              if (earlier.state.undelivered() && !together.contains(earlier.id)) {
                wrong.add(broken("key-order",
                    entry + " was recorded delivered while " + earlier + " of its key is " + earlier.state));
              }
            }
          }
        }
        case FAILED, POSTPONED -> {
          hold.landsBy = hold.claimedAt.plus(ANSWER_TIME);
          entry.notBefore = due;
        }
        case HELD_BACK -> {
          hold.landsBy = null;
          entry.notBefore = due;
        }
        case QUARANTINED -> {
          hold.landsBy = hold.claimedAt.plus(ANSWER_TIME);
          entry.state = State.AWAITING_OPERATOR;
          if (hold.landsBy.isAfter(entry.notBefore)) {
            entry.notBefore = hold.landsBy;
          }
        }
        case RELEASED -> hold.landsBy = null;
      }
    }
    return wrong;
  }

  // ------------------------------------------------------------------------------------------------ the store's rows

  /** What an action may do to entries besides the relays' recorded outcomes. */
  record Allowed(boolean park, boolean requeue, boolean discard) {
    static final Allowed NOTHING = new Allowed(false, false, false);
  }

  /**
   * Compares the store's rows with the model after an action: takes over the changes the action was allowed to make
   * (an operator's park, requeue or discard) and reports every other difference, and every allowed change that touched
   * an entry in flight.
   *
   * @param read the store's row of an id, or empty when it has none
   * @return the violations found
   */
  List<String> reconcile(String who, Allowed allowed, Function<UUID, Optional<OutboxEntry>> read, Instant now) {
    List<String> wrong = new ArrayList<>();
    for (Entry entry : entries.values()) {
      if (!entry.state.undelivered()) {
        continue; // final: a delivered, discarded or rolled-back entry handed out again fails the claim's check
      }
      Optional<OutboxEntry> row = read.apply(entry.id);
      State was = entry.state;
      State is = row.map(r -> stateOf(r.status())).orElse(null);
      if (is == was) {
        continue;
      }
      boolean legal = switch (was) {
        case WAITING -> (is == State.AWAITING_OPERATOR && allowed.park()) || (is == null && allowed.discard());
        case AWAITING_OPERATOR -> (is == State.WAITING && allowed.requeue()) || (is == null && allowed.discard());
        default -> false;
      };
      if (!legal) {
        wrong.add(broken("lost-or-changed",
            "after " + who + ", " + entry + " is " + (is == null ? "gone" : row.get().status()) + " but should be "
            + was));
        continue;
      }
      for (Hold hold : holdsOf(entry)) {
        if (hold.live(now)) {
          wrong.add(broken("operator-touched-in-flight",
              who + " changed " + entry + " to " + (is == null ? "gone" : is) + " while " + hold.relay
              + " holds it in flight until " + hold.claim.leaseUntil()));
        }
        hold.over = true;
      }
      entry.state = is == null ? State.DISCARDED : is;
      if (is == State.WAITING && now.isAfter(entry.notBefore)) {
        entry.notBefore = now;
      }
    }
    return wrong;
  }

  private static State stateOf(EntryStatus status) {
    return switch (status) {
      case PENDING, FAILED -> State.WAITING;
      case PARKED, QUARANTINED -> State.AWAITING_OPERATOR;
      case DELIVERED -> State.DELIVERED;
    };
  }
}
