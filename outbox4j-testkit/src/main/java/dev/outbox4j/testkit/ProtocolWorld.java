package dev.outbox4j.testkit;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import dev.outbox4j.testkit.ProtocolModel.Allowed;
import dev.outbox4j.testkit.ProtocolModel.Hold;
import dev.outbox4j.testkit.ProtocolModel.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The small world one chain of {@link ClaimProtocolProperty} acts on: a store under test, its settable clock, three
 * relays with the claims they hold, one operator, a transactional writer, and the {@link ProtocolModel} every step is
 * checked against. Each step appends a line to the story (who did what, and what came of it), which a failure prints.
 *
 * <p>Not thread-safe: a chain runs on one thread; a concurrent group starts its two calls on two threads of its own,
 * released together by a latch, and checks them after both returned.
 */
final class ProtocolWorld {
  /** The relays' lease. */
  static final Duration LEASE = Duration.ofSeconds(10);
  static final List<String> RELAYS = List.of("relay A", "relay B", "relay C");
  /** The most undelivered entries: enough for runs, parks and backlogs on three keys, few rows to check per step. */
  static final int MOST_UNDELIVERED = 14;
  static final List<String> DESTINATIONS = List.of("d1", "d2", "d3");
  /** The ordering keys; {@code null} writes an unkeyed message. */
  static final List<@Nullable String> KEYS = java.util.Arrays.asList("K1", "K2", "K3", null);

  /** Writes messages in one transaction of the store's writer, then commits or rolls it back. */
  @FunctionalInterface
  interface Writer {
    void write(List<Message> messages, boolean commit);
  }

  private final OutboxStore store;
  private final SettableClock clock;
  private final Writer writer;
  private final int maxRun;
  private final ProtocolModel model;
  private final Map<String, List<List<Hold>>> batches = new LinkedHashMap<>();
  private final Set<String> frozen = new HashSet<>();
  private final List<String> story = new ArrayList<>();
  private final String chain;

  ProtocolWorld(OutboxStore store, SettableClock clock, Writer writer, int maxRun, String chain) {
    this.model = new ProtocolModel();
    this.chain = chain;
    this.store = store;
    this.clock = clock;
    this.writer = writer;
    this.maxRun = maxRun;
    RELAYS.forEach(relay -> batches.put(relay, new ArrayList<>()));
  }

  int maxRun() {
    return maxRun;
  }

  /** @return whether the relay holds a batch it has not ended */
  boolean holdsClaims(int relay) {
    return !batches.get(RELAYS.get(relay)).isEmpty();
  }

  /** @return whether the relay is frozen */
  boolean isFrozen(int relay) {
    return frozen.contains(RELAYS.get(relay));
  }

  // ------------------------------------------------------------------------------------------------ writers

  /** A message to write: its key (or {@code null}) and destination. */
  record Write(@Nullable String key, String destination) {
    @Override
    public String toString() {
      return (key == null ? "unkeyed" : key) + ">" + destination;
    }
  }

  void write(List<Write> writes, boolean commit) {
    if (commit && model.undelivered() >= MOST_UNDELIVERED) {
      tell("a writer skips its write: " + MOST_UNDELIVERED + " entries wait already");
      return;
    }
    List<Message> messages = new ArrayList<>();
    for (Write w : writes) {
      Message.Builder builder = Message.builder().withDestination(w.destination()).withPayload("p");
      messages.add((w.key() == null ? builder : builder.withOrderingKey(w.key())).build());
    }
    writer.write(messages, commit);
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      UUID id = messages.get(i).id();
      if (commit) {
        labels.add(model.committed(id, writes.get(i).key(), writes.get(i).destination(), now()).label);
      } else {
        model.rolledBack(id);
        labels.add(writes.get(i).toString());
        if (store.find(id).isPresent()) {
          fail(List.of(ProtocolModel.broken("rolled-back-appeared",
              "a rolled-back message appeared: " + writes.get(i))));
        }
      }
    }
    tell("a writer " + (commit ? "commits " : "rolls back ") + labels);
    verify("the write", Allowed.NOTHING);
  }

  // ------------------------------------------------------------------------------------------------ relays

  void claim(int relay, int limit, int run) {
    String name = RELAYS.get(relay);
    if (frozen.contains(name)) {
      tell(name + " is frozen and claims nothing");
      return;
    }
    Instant now = now();
    List<Claim> claims = store.claim(limit, now, LEASE, run);
    recordClaim(name, claims, now, run, "");
    verify(name + "'s claim", Allowed.NOTHING);
  }

  private void recordClaim(String relay, List<Claim> claims, Instant now, int run, String note) {
    tell(relay + " claims up to " + (run > 1 ? "runs of " + run : "one per key") + note + " -> " + labels(claims));
    fail(model.claimed(relay, claims, now, run));
    List<Hold> held = claims.stream().map(model::holdOf).toList();
    Set<String> paused = store.operatorPauses().stream().map(OperatorPause::destination).collect(Collectors.toSet());
    // a paused destination's entries are held back, and with them the rest of their key's run (sent after them)
    List<Hold> back = new ArrayList<>();
    Set<String> keysHeldBack = new HashSet<>();
    for (Hold hold : held) {
      String key = hold.claim.message().orderingKey().orElse(null);
      if (paused.contains(hold.claim.message().destination()) || (key != null && keysHeldBack.contains(key))) {
        back.add(hold);
        if (key != null) {
          keysHeldBack.add(key);
        }
      }
    }
    List<Hold> kept = held.stream().filter(h -> !back.contains(h)).toList();
    if (!back.isEmpty()) {
      Instant due = now.plusSeconds(1);
      List<Claim> lost = store.postpone(back.stream().map(h -> h.claim).toList(), "paused by an operator", due);
      tell(relay + " holds back " + labels(back.stream().map(h -> h.claim).toList()) + " (destination paused)"
          + lostNote(lost));
      Set<UUID> refused = ids(lost);
      fail(model.ended(back, h -> !refused.contains(h.claim.id()), Outcome.HELD_BACK, now, due));
    }
    if (!kept.isEmpty()) {
      batches.get(relay).add(new ArrayList<>(kept));
    }
  }

  /** The relay ends its oldest batch with one outcome, as a relay ends an atomic batch. */
  void end(int relay, Outcome outcome, Duration backoff) {
    String name = RELAYS.get(relay);
    List<List<Hold>> mine = batches.get(name);
    if (frozen.contains(name) || mine.isEmpty()) {
      tell(name + (frozen.contains(name) ? " is frozen" : " holds nothing") + " and records no " + outcome);
      return;
    }
    finish(name, mine.remove(0), outcome, backoff);
    verify(name + "'s " + outcome, Allowed.NOTHING);
  }

  private void finish(String relay, List<Hold> batch, Outcome outcome, Duration backoff) {
    Instant now = now();
    List<Claim> claims = batch.stream().map(h -> h.claim).toList();
    Set<Claim> lost = new HashSet<>();
    Instant due = now.plus(backoff);
    for (Hold hold : batch) {
      Instant landed = hold.claimedAt.plus(ProtocolModel.ANSWER_TIME);
      if (landed.isAfter(due)) {
        due = landed; // a relay schedules no attempt before the bound by which the last copy lands
      }
    }
    Instant next = due;
    switch (outcome) {
      case DELIVERED -> lost.addAll(store.markDelivered(claims, now));
      case RELEASED -> lost.addAll(store.release(claims));
      case FAILED -> claims.stream().filter(c -> !store.markFailed(c, "503 from the test transport", next))
          .forEach(lost::add);
      case POSTPONED -> claims.stream().filter(c -> !store.postpone(c, "destination down", next)).forEach(lost::add);
      case QUARANTINED -> claims.stream()
          .filter(c -> !store.quarantine(c, QuarantineReason.permanentFailure("422 from the test transport"),
              model.holdOf(c).claimedAt.plus(ProtocolModel.ANSWER_TIME)))
          .forEach(lost::add);
      case HELD_BACK -> throw new IllegalArgumentException("held back happens at claim time");
    }
    String late = claims.stream().anyMatch(c -> !now.isBefore(c.leaseUntil())) ? " (past its lease)" : "";
    String when = outcome == Outcome.FAILED || outcome == Outcome.POSTPONED ? ", due " + next : "";
    tell(relay + " records " + outcome.name().toLowerCase(java.util.Locale.ROOT) + " for " + labels(claims) + late
        + when + lostNote(lost));
    Set<UUID> refused = ids(lost);
    fail(model.ended(batch, h -> !refused.contains(h.claim.id()), outcome, now, next));
  }

  /**
   * The relay records its oldest batch delivered and claims the next one in the same step
   * ({@link OutboxStore#markDeliveredAndClaim}), as a busy relay goes from batch to batch.
   */
  void deliverAndClaim(int relay, int limit, int run) {
    String name = RELAYS.get(relay);
    List<List<Hold>> mine = batches.get(name);
    if (frozen.contains(name) || mine.isEmpty()) {
      tell(name + (frozen.contains(name) ? " is frozen" : " holds nothing") + " and takes no step");
      return;
    }
    List<Hold> batch = mine.remove(0);
    Instant now = now();
    List<Claim> claims = batch.stream().map(h -> h.claim).toList();
    DeliveredAndClaimed step = store.markDeliveredAndClaim(claims, now,
        new ClaimRequest(limit, now, LEASE, run, Set.of()));
    String late = claims.stream().anyMatch(c -> !now.isBefore(c.leaseUntil())) ? " (past its lease)" : "";
    tell(name + " records delivered for " + labels(claims) + late + lostNote(step.lost()) + ", and in the same step");
    Set<UUID> refused = ids(step.lost());
    fail(model.ended(batch, h -> !refused.contains(h.claim.id()), Outcome.DELIVERED, now, now));
    recordClaim(name, step.claims(), now, run, " (with those confirmations)");
    verify(name + "'s delivery and claim", Allowed.NOTHING);
  }

  /** The relay dies: its claims are abandoned, whatever it sent under them may land until their leases end. */
  void die(int relay) {
    String name = RELAYS.get(relay);
    List<List<Hold>> mine = batches.get(name);
    tell(name + " dies, abandoning " + mine.stream().flatMap(List::stream).map(h -> model.label(h.claim.id())).toList());
    mine.clear();
    frozen.remove(name);
  }

  void freeze(int relay) {
    String name = RELAYS.get(relay);
    frozen.add(name);
    tell(name + " freezes, holding " + batches.get(name).stream().flatMap(List::stream)
        .map(h -> model.label(h.claim.id())).toList());
  }

  /** A frozen relay wakes up and confirms everything it held, however late. */
  void thaw(int relay) {
    String name = RELAYS.get(relay);
    if (!frozen.remove(name)) {
      tell(name + " was not frozen");
      return;
    }
    tell(name + " wakes up");
    List<List<Hold>> mine = batches.get(name);
    while (!mine.isEmpty()) {
      finish(name, mine.remove(0), Outcome.DELIVERED, Duration.ZERO);
    }
    verify(name + "'s late confirmations", Allowed.NOTHING);
  }

  void jump(Duration amount) {
    clock.advance(amount);
    tell("the clock jumps " + amount.toSeconds() + " s to " + now());
  }

  // ------------------------------------------------------------------------------------------------ operator

  /** What an operator does. */
  enum Move {
    PARK_WAITING, DISCARD_WAITING, REQUEUE_ONE, DISCARD_ONE, REQUEUE_SELECTED, DISCARD_SELECTED
  }

  /**
   * @param target which destination, key or entry: an index into the destinations then keys (waiting and selected
   *     moves; past them, for selected moves, everything), or into the entries waiting for an operator
   */
  void operate(Move move, int target) {
    String done = operateUnchecked(move, target);
    tell("the operator " + done);
    verify("the operator's " + move, allowedBy(move));
  }

  private String operateUnchecked(Move move, int target) {
    Instant now = now();
    return switch (move) {
      case PARK_WAITING -> {
        WaitingSelector selector = waitingSelector(target);
        yield "parks waiting entries of " + describe(selector) + ": " + store.parkWaiting(selector, now, 10);
      }
      case DISCARD_WAITING -> {
        WaitingSelector selector = waitingSelector(target);
        yield "discards waiting entries of " + describe(selector) + ": " + store.discardWaiting(selector, now, 10);
      }
      case REQUEUE_ONE, DISCARD_ONE -> {
        List<OutboxEntry> awaiting = store.quarantined(QuarantineQuery.first(100));
        if (awaiting.isEmpty()) {
          yield "finds nothing to " + (move == Move.REQUEUE_ONE ? "requeue" : "discard");
        }
        UUID id = awaiting.get(target % awaiting.size()).id();
        yield move == Move.REQUEUE_ONE
            ? "requeues " + model.label(id) + ": " + store.requeue(id, now)
            : "discards " + model.label(id) + ": " + store.discard(id);
      }
      case REQUEUE_SELECTED -> {
        QuarantineSelector selector = quarantineSelector(target);
        yield "requeues " + selector.describe() + ": " + store.requeueAll(selector, now, 10);
      }
      case DISCARD_SELECTED -> {
        QuarantineSelector selector = quarantineSelector(target);
        yield "discards " + selector.describe() + ": " + store.discardAll(selector, 10);
      }
    };
  }

  private static Allowed allowedBy(Move move) {
    return switch (move) {
      case PARK_WAITING -> new Allowed(true, false, false);
      case DISCARD_WAITING, DISCARD_ONE, DISCARD_SELECTED -> new Allowed(false, false, true);
      case REQUEUE_ONE, REQUEUE_SELECTED -> new Allowed(false, true, false);
    };
  }

  private static WaitingSelector waitingSelector(int target) {
    int index = target % (DESTINATIONS.size() + 3);
    return index < DESTINATIONS.size() ? WaitingSelector.ofDestination(DESTINATIONS.get(index))
        : WaitingSelector.ofKey(KEYS.get(index - DESTINATIONS.size()));
  }

  private static String describe(WaitingSelector selector) {
    return selector.destination() != null ? "destination " + selector.destination() : "key " + selector.orderingKey();
  }

  private static QuarantineSelector quarantineSelector(int target) {
    int index = target % (DESTINATIONS.size() + 4);
    if (index < DESTINATIONS.size()) {
      return QuarantineSelector.ofDestination(DESTINATIONS.get(index));
    }
    index -= DESTINATIONS.size();
    return index < 3 ? QuarantineSelector.ofKey(KEYS.get(index)) : QuarantineSelector.all();
  }

  void pause(String destination) {
    tell("the operator pauses " + destination + ": " + store.pauseDestination(destination, "operator", "", now()));
  }

  void resume(String destination) {
    tell("the operator resumes " + destination + ": " + store.resumeDestination(destination));
  }

  void purge() {
    tell("the operator purges delivered entries: " + store.purgeDelivered(now(), 100));
    verify("the purge", Allowed.NOTHING);
  }

  // ------------------------------------------------------------------------------------------------ concurrent groups

  /** Two relays claim at the same moment, on two threads (and connections). */
  void claimTogether(int first, int second, int limit, int run) {
    String one = RELAYS.get(first);
    String two = RELAYS.get(second == first ? (second + 1) % RELAYS.size() : second);
    Instant now = now();
    Callable<List<Claim>> claim = () -> store.claim(limit, now, LEASE, run);
    List<List<Claim>> both = together(claim, claim);
    recordClaim(one, both.get(0), now, run, " (together with " + two + ")");
    recordClaim(two, both.get(1), now, run, " (together with " + one + ")");
    verify("the two claims", Allowed.NOTHING);
  }

  /**
   * A relay claims while the operator acts on waiting entries, at the same moment. Whatever order the database put
   * them in, the operator's change is taken into the model first and the claim is checked after it: a claim that ran
   * first holds its entries, so the operator must have left them alone; a claim that ran second saw the change.
   */
  void claimDuringOperator(int relay, int limit, int run, Move move, int target) {
    String name = RELAYS.get(relay);
    Instant now = now();
    List<Object> results = together(() -> store.claim(limit, now, LEASE, run), () -> operateUnchecked(move, target));
    tell("the operator, at the moment " + name + " claims, " + results.get(1));
    verify("the operator's " + move + " during " + name + "'s claim", allowedBy(move));
    @SuppressWarnings("unchecked")
    List<Claim> claims = (List<Claim>) results.get(0);
    recordClaim(name, claims, now, run, " (during the operator's " + move + ")");
    verify(name + "'s claim", Allowed.NOTHING);
  }

  /** Runs both calls on two threads released together ({@link Race}), and returns their results in order. */
  private static <T> List<T> together(Callable<T> first, Callable<T> second) {
    return Race.run(2, Duration.ofSeconds(60), i -> i == 0 ? first : second);
  }

  // ------------------------------------------------------------------------------------------------ checks and story

  private void verify(String who, Allowed allowed) {
    fail(model.reconcile(who, allowed, store::find, now()));
  }

  private void fail(List<String> violations) {
    if (!violations.isEmpty()) {
      throw new AssertionError("the claim protocol was broken:\n  " + String.join("\n  ", violations)
          + "\n\nthe story so far (" + chain + "):\n" + story());
    }
  }

  private void tell(String line) {
    story.add(String.format("%3d. %s", story.size() + 1, line));
  }

  /** @return every step so far, one line each */
  String story() {
    return String.join("\n", story);
  }

  private String labels(List<Claim> claims) {
    return claims.stream().map(c -> model.label(c.id())).toList().toString();
  }

  private static Set<UUID> ids(java.util.Collection<Claim> claims) {
    return claims.stream().map(Claim::id).collect(Collectors.toSet());
  }

  private String lostNote(java.util.Collection<Claim> lost) {
    return lost.isEmpty() ? "" : "; lost: " + labels(List.copyOf(lost));
  }

  private Instant now() {
    return clock.instant();
  }

  @Override
  public String toString() {
    return "world at " + now() + " with " + model.entries().size() + " entries";
  }
}
