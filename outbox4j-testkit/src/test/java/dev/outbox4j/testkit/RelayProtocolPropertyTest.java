package dev.outbox4j.testkit;

import dev.outbox4j.testkit.ActionChains.Step;
import dev.outbox4j.testkit.RelayWorld.Answer;
import dev.outbox4j.testkit.RelayWorld.Outage;
import dev.outbox4j.testkit.RelayWorld.Write;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The relay's promises under random chains: a stateful property over a small world ({@link RelayWorld}: keys K1..K3
 * and unkeyed messages, destinations d1..d3, relays A and B on one in-memory store and one settable clock). It draws
 * chains of up to {@value #STEPS} actions — writes, relay passes whose deliveries the chain answers (confirmed, refused,
 * failed, failed with the copy landing later, answered after the deadline with or without a copy landing), drains whose
 * claim ahead runs at a drawn point among the relay's store changes, passes that
 * freeze after sending and wake up later, relays that die and restart, outages of a destination (announced by the
 * transport or plain 503s) that start and end, late copies landing, clock jumps (inside and past the late-copy bound,
 * past the outage pause and window, past the lease), and a settling of everything — and checks after every step:
 * <ul>
 *   <li>per key, no copy of a message lands after a copy of a later message of its key ({@code [key-order]},
 *       {@code [late-copy]}): a late copy never overtakes;
 *   <li>an outage charges no attempt and quarantines nothing ({@code [charged-for-an-outage]},
 *       {@code [quarantined-for-an-outage]}): a pass charges an entry at most one attempt per failure of its own
 *       (a refusal, a failure or a timeout while its destination is up, or a plain 503 while the destination confirmed
 *       another message within the window, which cannot be told from the message's own fault), and quarantines only
 *       an entry with such a failure or a permanent refusal in that pass;
 *   <li>a fault stays in its lane ({@code [lane]}): a relay sends every entry it claimed unless its destination is
 *       paused, and holds a destination paused only while that destination's latest answer to it was a failure;
 *   <li>nothing is lost ({@code [nothing-lost]}, {@code [delivered-unconfirmed]}): every message stays in the store, is
 *       recorded delivered only after a copy landed, and once everything settles it is delivered, quarantined, or waits
 *       behind a quarantined entry of its key.
 * </ul>
 *
 * <p>{@link ActionChains} draws, runs and shrinks the chains, as for the claim-protocol property: a failing chain is
 * printed as a story with its seed; {@code -Doutbox4j.property.seed=<seed> -Doutbox4j.property.tries=1} replays it
 * (docs/relay.md, "The relay's property test"). The passes run on the test's thread, so a seed replays exactly.
 */
class RelayProtocolPropertyTest {
  /** The most actions in one chain. */
  static final int STEPS = 40;
  /** Chains tried by default; the {@code property-nightly} profile multiplies them. */
  static final int DEFAULT_TRIES = 200;

  private @Nullable RelayWorld current;
  private long started = System.nanoTime();
  private int chainsRun;

  @Test
  @Timeout(value = 4, unit = TimeUnit.HOURS)
  void the_relay_keeps_its_promises_under_random_chains() {
    int tries = PropertyBudget.tries(DEFAULT_TRIES);
    long seed = PropertyBudget.runSeed();
    System.out.println("the relay property tries " + tries + " chains from run seed " + seed
        + " (-Doutbox4j.property.seed=" + seed + " replays them)");
    started = System.nanoTime();
    Optional<ActionChains.Found> found;
    // thousands of outages and recoveries: the relay's log of them says nothing the stories do not
    Logger relayLog = Logger.getLogger("dev.outbox4j.relay");
    Level level = relayLog.getLevel();
    relayLog.setLevel(Level.SEVERE);
    try {
      found = new ActionChains<>(this::newWorld, RelayProtocolPropertyTest::draw, STEPS, PropertyBudget.shrinking())
          .check(tries, seed);
    } finally {
      closeCurrent();
      relayLog.setLevel(level);
    }
    if (found.isPresent()) {
      throw new AssertionError("the relay property: " + found.get().report(), found.get().shrunkFailure().error());
    }
    System.out.println("the relay property: " + tries + " chains held in "
        + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
  }

  private RelayWorld newWorld() {
    closeCurrent();
    chainsRun++;
    current = new RelayWorld("run " + chainsRun + ", " + Duration.ofNanos(System.nanoTime() - started).toMillis()
        + " ms after the property started");
    return current;
  }

  private void closeCurrent() {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  // ------------------------------------------------------------------------------------------------ drawing actions

  /** The kinds of action and how often each is drawn (out of their sum). */
  private enum Kind {
    WRITE(6), PASS(8), DRAIN(4), FREEZE(1), WAKE(1), KILL(1), OUTAGE(3), JUMP(5), LAND(2), SETTLE(1);

    final int weight;

    Kind(int weight) {
      this.weight = weight;
    }

    static Kind draw(Random random) {
      return ActionChains.weighted(random, values(), kind -> kind.weight);
    }
  }

  private static ActionChains.Action<RelayWorld> draw(Random random) {
    return switch (Kind.draw(random)) {
      case WRITE -> write(random);
      case PASS -> pass(random);
      case DRAIN -> drain(random);
      case FREEZE -> freeze(random);
      case WAKE -> {
        int relay = random.nextInt(RelayWorld.RELAYS.size());
        yield Step.when(RelayWorld.RELAYS.get(relay) + " wakes up", world -> world.isFrozen(relay),
            world -> world.wake(relay));
      }
      case KILL -> {
        int relay = random.nextInt(RelayWorld.RELAYS.size());
        yield Step.always(RelayWorld.RELAYS.get(relay) + " dies and restarts", world -> world.kill(relay));
      }
      case OUTAGE -> outage(random);
      case JUMP -> jump(random);
      case LAND -> {
        int index = random.nextInt(10);
        yield Step.when("a late copy lands (" + index + ")", RelayWorld::hasCopiesOnTheWay,
            world -> world.landOne(index));
      }
      case SETTLE -> Step.always("everything settles", RelayWorld::settle);
    };
  }

  private static Step<RelayWorld> write(Random random) {
    int count = 1 + random.nextInt(3);
    List<Write> writes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      writes.add(new Write(oneOf(random, RelayWorld.KEYS), oneOf(random, RelayWorld.DESTINATIONS)));
    }
    return Step.always("a writer commits " + writes, world -> world.write(writes));
  }

  private static List<Answer> script(Random random) {
    int length = 1 + random.nextInt(3);
    List<Answer> script = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      script.add(ActionChains.weighted(random, Answer.values(), answer -> switch (answer) {
        case CONFIRM -> 8;
        case FAIL -> 3;
        case FAIL_LANDS_LATER -> 2; // a late copy at no real time's cost (a late answer waits the delivery timeout)
        case REFUSE, LATE, LATE_LOST -> 1;
      }));
    }
    return script;
  }

  private static Step<RelayWorld> pass(Random random) {
    int relay = random.nextInt(RelayWorld.RELAYS.size());
    List<Answer> script = script(random);
    return Step.when(RelayWorld.RELAYS.get(relay) + " runs a pass, answers " + describe(script),
        world -> !world.isFrozen(relay), world -> world.pass(relay, script));
  }

  private static Step<RelayWorld> drain(Random random) {
    int relay = random.nextInt(RelayWorld.RELAYS.size());
    List<Answer> script = script(random);
    int aheadAt = random.nextInt(4);
    boolean combines = random.nextBoolean();
    return Step.when(RelayWorld.RELAYS.get(relay) + " drains, answers " + describe(script) + ", a claim ahead before"
        + " its change " + (aheadAt + 1) + (combines ? ", the store combining" : ""),
        // a drain claims ahead only after a full batch: drawn while a batch's worth is due
        world -> !world.isFrozen(relay) && world.due() >= RelayWorld.BATCH,
        world -> world.drain(relay, script, aheadAt, combines));
  }

  private static Step<RelayWorld> freeze(Random random) {
    int relay = random.nextInt(RelayWorld.RELAYS.size());
    List<Answer> script = script(random);
    return Step.when(RelayWorld.RELAYS.get(relay) + " runs a pass, answers " + describe(script)
        + ", and freezes before recording", world -> !world.isFrozen(relay), world -> world.passAndFreeze(relay, script));
  }

  private static Step<RelayWorld> outage(Random random) {
    String destination = oneOf(random, RelayWorld.DESTINATIONS);
    int pick = random.nextInt(3);
    if (pick == 0) {
      return Step.always(destination + " comes back", world -> world.endOutage(destination));
    }
    Outage how = pick == 1 ? Outage.ANNOUNCED : Outage.SILENT;
    return Step.always(destination + " goes down (" + how + ")", world -> world.startOutage(destination, how));
  }

  private static Step<RelayWorld> jump(Random random) {
    Duration amount = oneOf(random, List.of(Duration.ofMillis(10), RelayWorld.ANSWER_TIME.plusMillis(10),
        RelayWorld.OUTAGE_BASE.plusSeconds(1), RelayWorld.OUTAGE_CAP.plusSeconds(1), RelayWorld.LEASE.plusSeconds(1)));
    return Step.always("the clock jumps " + amount.toMillis() + " ms", world -> world.jump(amount));
  }

  private static String describe(List<Answer> script) {
    return script.stream().map(Answer::describe).toList().toString();
  }

  private static <T> T oneOf(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }


}
