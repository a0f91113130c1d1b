package dev.outbox4j.testkit;

import dev.outbox4j.Message;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.ProtocolModel.Outcome;
import dev.outbox4j.testkit.ProtocolWorld.Move;
import dev.outbox4j.testkit.ProtocolWorld.Write;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;

/**
 * The claim protocol under random interleavings: a stateful property that every store runs, over a small world (three
 * keys and unkeyed messages, three destinations, three relays, one operator, a settable clock). jqwik draws a chain of
 * up to {@value #STEPS} actions — writes committed or rolled back, claims with and without runs, each outcome a relay
 * records (delivered, failed, postponed, quarantined, released), relays that die or freeze and confirm late, clock
 * jumps past leases and late-copy bounds, the operator's park / requeue / discard (by id, by selection, of waiting
 * entries), destination pauses and purges — and runs it against the store; some steps are concurrent groups (two
 * claims, or a claim and the operator's action on waiting entries, released together on two threads and connections).
 * After every step the store's rows and answers are checked against {@link ProtocolModel}: at most one entry of a key
 * in flight unless a run was asked for, a run a gap-free prefix of its key; a completion after its claim was taken over
 * changes nothing; an entry discarded or parked is never completed as delivered nor handed out; a key's deliveries
 * follow key order; nothing committed is lost and nothing rolled back appears; no entry of a key is handed out while a
 * copy of an earlier send of that key may still land, whatever the operator did in between.
 *
 * <p>A failing chain is shrunk and printed as a story (who did what, and what came of it). The number of chains comes
 * from {@link #defaultTries()}, or the system property {@code outbox4j.property.tries}; a printed seed is replayed with
 * {@code -Doutbox4j.property.seed=<seed>} (see docs/stores.md, "Property tests of the claim protocol"). Concurrent groups
 * depend on the threads' timing, so a seed replays the chain exactly and its races as closely as the machine allows.
 *
 * <p>Subclass it as the contract suites are subclassed: supply an empty store and a writer that commits or rolls back.
 */
public abstract class ClaimProtocolProperty {
  /** The most actions in one chain. */
  static final int STEPS = 40;

  /**
   * @param clock the clock the store must use
   * @param retention what the store must do with delivered entries
   * @return a new, EMPTY store (each call: no entries left from earlier chains)
   */
  protected abstract OutboxStore newStore(Clock clock, Retention retention);

  /**
   * Writes the messages in one transaction of the store's own writer (for JDBC, a connection's transaction through its
   * {@code JdbcOutbox}), then commits or rolls it back.
   *
   * @param store a store {@link #newStore} returned
   * @param messages the messages, in order
   * @param commit whether to commit
   */
  protected abstract void writeInTransaction(OutboxStore store, List<Message> messages, boolean commit);

  /** @return the longest run of a key the chains ask for; {@code 1} for a store that hands out no runs */
  protected int maxRun() {
    return 3;
  }

  /** @return how many chains to try when {@code outbox4j.property.tries} is not set */
  protected int defaultTries() {
    return 30;
  }

  /**
   * Runs one chain; jqwik draws {@link #defaultTries()} of them (see {@link PropertyBudget}) and shrinks a failing one.
   *
   * @param chain the chain of actions, drawn by {@link #chains()}
   */
  @Property(shrinking = ShrinkingMode.FULL)
  @AddLifecycleHook(PropertyBudget.class)
  public final void the_claim_protocol_holds_under_random_interleavings(
      @ForAll("chains") ActionChain<ProtocolWorld> chain) {
    chain.run();
  }

  @Provide
  final Arbitrary<ActionChain<ProtocolWorld>> chains() {
    ActionChainArbitrary<ProtocolWorld> chains = ActionChain.<ProtocolWorld>startWith(this::newWorld)
        .withAction(6, action(write()))
        .withAction(8, action(claim()))
        .withAction(8, action(end()))
        .withAction(1, action(relayLife()))
        .withAction(4, action(jump()))
        .withAction(5, action(operate()))
        .withAction(1, action(pauses()))
        .withAction(1, Action.just("the operator purges delivered entries", Transformer.mutate(
            "the operator purges delivered entries", ProtocolWorld::purge)))
        .withAction(3, action(claimTogether()));
    return (KnownFindings.skipped(KnownFindings.OPERATOR_DURING_CLAIM) ? chains
        : chains.withAction(4, action(claimDuringOperator()))).withMaxTransformations(STEPS);
  }

  private long started = System.nanoTime();
  private int chainsRun;

  private ProtocolWorld newWorld() {
    SettableClock clock = SettableClock.atFixedStart();
    OutboxStore store = newStore(clock, Retention.keepFor(Duration.ofMinutes(2)));
    chainsRun++;
    String chain = "chain " + chainsRun + ", " + Duration.ofNanos(System.nanoTime() - started).toMillis()
        + " ms after the property started" + (KnownFindings.skipped().isEmpty() ? ""
            : "; skipping known findings " + KnownFindings.skipped());
    return new ProtocolWorld(store, clock, (messages, commit) -> writeInTransaction(store, messages, commit), maxRun(),
        chain);
  }

  private static Action.Independent<ProtocolWorld> action(Arbitrary<Transformer<ProtocolWorld>> transformers) {
    return () -> transformers;
  }

  private static Arbitrary<Integer> relay() {
    return Arbitraries.integers().between(0, ProtocolWorld.RELAYS.size() - 1);
  }

  private Arbitrary<Integer> run() {
    return Arbitraries.integers().between(1, maxRun());
  }

  private static Arbitrary<Integer> limit() {
    return Arbitraries.integers().between(1, 4);
  }

  private static Arbitrary<Transformer<ProtocolWorld>> write() {
    Arbitrary<Write> one = Combinators.combine(Arbitraries.of(0, 1, 2, 3),
        Arbitraries.of(ProtocolWorld.DESTINATIONS)).as((key, destination) ->
            new Write(ProtocolWorld.KEYS.get(key), destination));
    Arbitrary<Boolean> commit = Arbitraries.frequency(java.util.List.of(
        net.jqwik.api.Tuple.of(6, true), net.jqwik.api.Tuple.of(1, false)));
    return Combinators.combine(one.list().ofMinSize(1).ofMaxSize(3), commit).as((writes, commits) ->
        Transformer.mutate("a writer " + (commits ? "commits " : "rolls back ") + writes,
            world -> world.write(writes, commits)));
  }

  private Arbitrary<Transformer<ProtocolWorld>> claim() {
    return Combinators.combine(relay(), limit(), run()).as((relay, limit, run) ->
        Transformer.mutate(ProtocolWorld.RELAYS.get(relay) + " claims up to " + limit + " (runs of " + run + ")",
            world -> world.claim(relay, limit, run)));
  }

  private static Arbitrary<Transformer<ProtocolWorld>> end() {
    Arbitrary<Outcome> outcome = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, Arbitraries.just(Outcome.DELIVERED)),
        net.jqwik.api.Tuple.of(2, Arbitraries.just(Outcome.FAILED)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(Outcome.POSTPONED)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(Outcome.QUARANTINED)),
        net.jqwik.api.Tuple.of(1, Arbitraries.just(Outcome.RELEASED)));
    Arbitrary<Duration> backoff = Arbitraries.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(20));
    return Combinators.combine(relay(), outcome, backoff).as((relay, what, delay) ->
        Transformer.mutate(ProtocolWorld.RELAYS.get(relay) + " records " + what + " for its oldest batch (backoff "
            + delay.toSeconds() + " s)", world -> world.end(relay, what, delay)));
  }

  private static Arbitrary<Transformer<ProtocolWorld>> relayLife() {
    return Combinators.combine(relay(), Arbitraries.of("dies", "freezes", "wakes up")).as((relay, what) ->
        Transformer.mutate(ProtocolWorld.RELAYS.get(relay) + " " + what, world -> {
          switch (what) {
            case "dies" -> world.die(relay);
            case "freezes" -> world.freeze(relay);
            default -> world.thaw(relay);
          }
        }));
  }

  private static Arbitrary<Transformer<ProtocolWorld>> jump() {
    Duration pastLateCopies = ProtocolModel.ANSWER_TIME.plusSeconds(1);
    Duration pastLease = ProtocolWorld.LEASE.plusSeconds(1);
    return Arbitraries.of(Duration.ofSeconds(1), pastLateCopies, pastLease, Duration.ofMinutes(3)).map(amount ->
        Transformer.mutate("the clock jumps " + amount.toSeconds() + " s", world -> world.jump(amount)));
  }

  private static Arbitrary<Transformer<ProtocolWorld>> operate() {
    return Combinators.combine(Arbitraries.of(Move.class), Arbitraries.integers().between(0, 9)).as((move, target) ->
        Transformer.mutate("the operator: " + move + " (target " + target + ")", world -> world.operate(move, target)));
  }

  private static Arbitrary<Transformer<ProtocolWorld>> pauses() {
    return Combinators.combine(Arbitraries.of(ProtocolWorld.DESTINATIONS), Arbitraries.of(true, false)).as(
        (destination, pause) -> Transformer.mutate("the operator " + (pause ? "pauses " : "resumes ") + destination,
            world -> {
              if (pause) {
                world.pause(destination);
              } else {
                world.resume(destination);
              }
            }));
  }

  private Arbitrary<Transformer<ProtocolWorld>> claimTogether() {
    return Combinators.combine(relay(), relay(), limit(), run()).as((first, second, limit, run) ->
        Transformer.mutate("two relays claim at once, up to " + limit + " (runs of " + run + ")",
            world -> world.claimTogether(first, second, limit, run)));
  }

  private Arbitrary<Transformer<ProtocolWorld>> claimDuringOperator() {
    return Combinators.combine(relay(), limit(), run(), Arbitraries.of(Move.PARK_WAITING, Move.DISCARD_WAITING),
        Arbitraries.integers().between(0, 9)).as((relay, limit, run, move, target) ->
            Transformer.mutate(ProtocolWorld.RELAYS.get(relay) + " claims up to " + limit + " (runs of " + run
                + ") while the operator " + move + " (target " + target + ")",
                world -> world.claimDuringOperator(relay, limit, run, move, target)));
  }
}
