package dev.outbox4j.testkit;

import dev.outbox4j.Message;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.ActionChains.Step;
import dev.outbox4j.testkit.ProtocolModel.Outcome;
import dev.outbox4j.testkit.ProtocolWorld.Move;
import dev.outbox4j.testkit.ProtocolWorld.Write;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The claim protocol under random interleavings: a stateful property that every store runs, over a small world (three
 * keys and unkeyed messages, three destinations, three relays, one operator, a settable clock). It draws chains
 * of up to {@value #STEPS} actions — writes committed or rolled back, claims with and without runs, each outcome a relay
 * records (delivered, failed, postponed, quarantined, released), a batch's delivery recorded with the next claim in one
 * step ({@link OutboxStore#markDeliveredAndClaim}), relays that die or freeze and confirm late, clock
 * jumps past leases and late-copy bounds, the operator's park / requeue / discard (by id, by selection, of waiting
 * entries), destination pauses and purges — and runs it against the store; some steps are concurrent groups (two
 * claims, or a claim and the operator's action on waiting entries, released together on two threads and connections).
 * After every step the store's rows and answers are checked against {@link ProtocolModel}: at most one entry of a key
 * in flight unless a run was asked for, a run a gap-free prefix of its key; a completion after its claim was taken over
 * changes nothing; an entry discarded or parked is never completed as delivered nor handed out; a key's deliveries
 * follow key order; nothing committed is lost and nothing rolled back appears; no entry of a key is handed out while a
 * copy of an earlier send of that key may still land, whatever the operator did in between.
 *
 * <p>{@link ActionChains} runs the chains, each from a fresh store and clock, and shrinks a failing one to a short
 * chain that fails with the same invariant, printed as a story (who did what, and what came of it) with its seed. The
 * number of chains comes from {@link #defaultTries()} (see {@link PropertyBudget}); a printed seed is replayed with
 * {@code -Doutbox4j.property.seed=<seed> -Doutbox4j.property.tries=1} (see docs/stores.md, "Property tests of the claim
 * protocol"). Concurrent groups depend on the threads' timing, so a seed replays the chain exactly and its races as
 * closely as the machine allows.
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
   * Runs {@link #defaultTries()} random chains (see {@link PropertyBudget}) and fails with the shrunk story of the first
   * that breaks an invariant. The timeout leaves room for the {@code property-nightly} profile's budget.
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.HOURS)
  public final void the_claim_protocol_holds_under_random_interleavings() {
    int tries = PropertyBudget.tries(defaultTries());
    long seed = PropertyBudget.runSeed();
    String store = getClass().getSimpleName();
    System.out.println(store + ": the claim-protocol property tries " + tries + " chains from run seed " + seed
        + " (-Doutbox4j.property.seed=" + seed + " replays them)");
    started = System.nanoTime();
    chainsRun = 0;
    Optional<ActionChains.Found> found = new ActionChains<ProtocolWorld>(this::newWorld, this::draw, STEPS,
        PropertyBudget.shrinking()).check(tries, seed);
    if (found.isPresent()) {
      throw new AssertionError(store + ": " + found.get().report(), found.get().shrunkFailure().error());
    }
    System.out.println(store + ": " + tries + " chains held in "
        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
  }

  private long started = System.nanoTime();
  private int chainsRun;

  private ProtocolWorld newWorld() {
    SettableClock clock = SettableClock.atFixedStart();
    OutboxStore store = newStore(clock, Retention.keepFor(Duration.ofMinutes(2)));
    chainsRun++;
    String chain = "run " + chainsRun + ", " + Duration.ofNanos(System.nanoTime() - started).toMillis()
        + " ms after the property started";
    return new ProtocolWorld(store, clock, (messages, commit) -> writeInTransaction(store, messages, commit), maxRun(),
        chain);
  }

  // ------------------------------------------------------------------------------------------------ drawing actions

  /** The kinds of action and how often each is drawn (out of their sum). */
  private enum Kind {
    WRITE(6), CLAIM(8), END(8), DELIVER_AND_CLAIM(5), RELAY_LIFE(1), JUMP(4), OPERATE(5), PAUSE(1), PURGE(1), CLAIM_TOGETHER(3),
    CLAIM_DURING_OPERATOR(4);

    final int weight;

    Kind(int weight) {
      this.weight = weight;
    }

    static Kind draw(Random random) {
      return ActionChains.weighted(random, values(), kind -> kind.weight);
    }
  }

  private ActionChains.Action<ProtocolWorld> draw(Random random) {
    return switch (Kind.draw(random)) {
      case WRITE -> write(random);
      case CLAIM -> claim(random);
      case END -> end(random);
      case DELIVER_AND_CLAIM -> deliverAndClaim(random);
      case RELAY_LIFE -> relayLife(random);
      case JUMP -> jump(random);
      case OPERATE -> operate(random);
      case PAUSE -> pause(random);
      case PURGE -> Step.always("the operator purges delivered entries", ProtocolWorld::purge);
      case CLAIM_TOGETHER -> claimTogether(random);
      case CLAIM_DURING_OPERATOR -> claimDuringOperator(random);
    };
  }

  private static <T> T oneOf(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  private static int relay(Random random) {
    return random.nextInt(ProtocolWorld.RELAYS.size());
  }

  private int run(Random random) {
    return 1 + random.nextInt(maxRun());
  }

  private static int limit(Random random) {
    return 1 + random.nextInt(4);
  }

  private static Step<ProtocolWorld> write(Random random) {
    int count = 1 + random.nextInt(3);
    List<Write> writes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      writes.add(new Write(oneOf(random, ProtocolWorld.KEYS), oneOf(random, ProtocolWorld.DESTINATIONS)));
    }
    boolean commit = random.nextInt(7) < 6;
    return Step.always("a writer " + (commit ? "commits " : "rolls back ") + writes,
        world -> world.write(writes, commit));
  }

  private Step<ProtocolWorld> claim(Random random) {
    int relay = relay(random);
    int limit = limit(random);
    int run = run(random);
    return new Step<>(ProtocolWorld.RELAYS.get(relay) + " claims up to " + limit + " (runs of " + run + ")",
        world -> !world.isFrozen(relay), false, world -> world.claim(relay, limit, run));
  }

  private static Step<ProtocolWorld> end(Random random) {
    int relay = relay(random);
    int pick = random.nextInt(10);
    Outcome outcome = pick < 5 ? Outcome.DELIVERED : pick < 7 ? Outcome.FAILED : pick < 8 ? Outcome.POSTPONED
        : pick < 9 ? Outcome.QUARANTINED : Outcome.RELEASED;
    Duration backoff = oneOf(random, List.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(20)));
    return new Step<>(ProtocolWorld.RELAYS.get(relay) + " records " + outcome + " for its oldest batch (backoff "
        + backoff.toSeconds() + " s)", world -> world.holdsClaims(relay) && !world.isFrozen(relay), false,
        world -> world.end(relay, outcome, backoff));
  }

  private Step<ProtocolWorld> deliverAndClaim(Random random) {
    int relay = relay(random);
    int limit = limit(random);
    int run = run(random);
    return new Step<>(ProtocolWorld.RELAYS.get(relay) + " records its oldest batch delivered and claims up to " + limit
        + " (runs of " + run + ") in one step", world -> world.holdsClaims(relay) && !world.isFrozen(relay), false,
        world -> world.deliverAndClaim(relay, limit, run));
  }

  private static Step<ProtocolWorld> relayLife(Random random) {
    int relay = relay(random);
    String name = ProtocolWorld.RELAYS.get(relay);
    return switch (random.nextInt(3)) {
      case 0 -> Step.always(name + " dies", world -> world.die(relay));
      case 1 -> new Step<>(name + " freezes", world -> !world.isFrozen(relay), false, world -> world.freeze(relay));
      default -> new Step<>(name + " wakes up", world -> world.isFrozen(relay), false, world -> world.thaw(relay));
    };
  }

  private static Step<ProtocolWorld> jump(Random random) {
    Duration amount = oneOf(random, List.of(Duration.ofSeconds(1), ProtocolModel.ANSWER_TIME.plusSeconds(1),
        ProtocolWorld.LEASE.plusSeconds(1), Duration.ofMinutes(3)));
    return Step.always("the clock jumps " + amount.toSeconds() + " s", world -> world.jump(amount));
  }

  private static Step<ProtocolWorld> operate(Random random) {
    Move move = oneOf(random, List.of(Move.values()));
    int target = random.nextInt(10);
    return Step.always("the operator: " + move + " (target " + target + ")", world -> world.operate(move, target));
  }

  private static Step<ProtocolWorld> pause(Random random) {
    String destination = oneOf(random, ProtocolWorld.DESTINATIONS);
    boolean pause = random.nextBoolean();
    return Step.always("the operator " + (pause ? "pauses " : "resumes ") + destination, world -> {
      if (pause) {
        world.pause(destination);
      } else {
        world.resume(destination);
      }
    });
  }

  private Step<ProtocolWorld> claimTogether(Random random) {
    int first = relay(random);
    int second = relay(random);
    int limit = limit(random);
    int run = run(random);
    return new Step<>("two relays claim at once, up to " + limit + " (runs of " + run + ")", world -> true, true,
        world -> world.claimTogether(first, second, limit, run));
  }

  private Step<ProtocolWorld> claimDuringOperator(Random random) {
    int relay = relay(random);
    int limit = limit(random);
    int run = run(random);
    Move move = random.nextBoolean() ? Move.PARK_WAITING : Move.DISCARD_WAITING;
    int target = random.nextInt(10);
    return new Step<>(ProtocolWorld.RELAYS.get(relay) + " claims up to " + limit + " (runs of " + run
        + ") while the operator " + move + " (target " + target + ")", world -> !world.isFrozen(relay), true,
        world -> world.claimDuringOperator(relay, limit, run, move, target));
  }
}
