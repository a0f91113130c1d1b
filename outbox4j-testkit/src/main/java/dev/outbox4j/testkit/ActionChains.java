package dev.outbox4j.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A small runner of stateful property tests: random chains of actions against a fresh world, shrunk to a short failing
 * chain and replayable from a printed seed.
 *
 * <h2>Why our own runner</h2>
 * The claim-protocol property needs four things: chains drawn from a seed, actions that are skipped where their
 * precondition does not hold, a check after every step, and a shrinker that keeps a failure's story short. That is a
 * few hundred lines, and owning them lets the shrinker treat concurrent groups honestly (a step counts as failing only
 * when it failed) and re-run every candidate from a fresh store and clock. (The library we used before asks that AI
 * agents not use it; this project respects that.)
 *
 * <h2>Seeds</h2>
 * A run has one seed, printed at its start. Try {@code 0} draws its chain from the run seed itself, try {@code i + 1}
 * from a seed drawn from try {@code i}'s, so replaying a run seed replays every try, and replaying a failing try's
 * seed with one try replays exactly that chain. Chains are drawn up front, independent of the world, so the same seed
 * gives the same chain on every store.
 *
 * <h2>Shrinking</h2>
 * Delta debugging: drop the steps after the failing one (they never ran), then remove halves, then quarters, ...
 * then single actions, keeping each removal after which the chain still fails with the same invariant (the first
 * {@code [name]} in the failure's message, else the exception's class), each candidate re-run from a fresh world;
 * bounded by a number of re-runs and a time ({@link ShrinkBudget}). A chain
 * that holds a {@link Action#concurrent() concurrent} action is not deterministic, so such a candidate is tried up to
 * {@link ShrinkBudget#concurrentAttempts()} times and counts as failing only if one of them failed.
 *
 * <p>Not thread-safe: one property runs it on one thread (an action may start threads of its own and must join them).
 *
 * @param <W> the world a chain acts on
 */
final class ActionChains<W> {
  /**
   * What shrinking one failure may spend.
   *
   * @param reruns the most re-runs of candidate chains
   * @param concurrentAttempts how often a candidate with a concurrent action is run before it counts as passing
   * @param time the longest shrinking may take
   */
  record ShrinkBudget(int reruns, int concurrentAttempts, Duration time) {
    /** 200 re-runs, 2 attempts, 3 minutes. */
    static final ShrinkBudget DEFAULT = new ShrinkBudget(200, 2, Duration.ofMinutes(3));

    ShrinkBudget {
      if (reruns < 0 || concurrentAttempts < 1) {
        throw new IllegalArgumentException("shrink reruns must be at least 0 and attempts at least 1, were " + reruns
            + " and " + concurrentAttempts);
      }
    }
  }
  private static final Pattern INVARIANT = Pattern.compile("\\[([a-z0-9 -]+)]");

  /**
   * One step of a chain.
   *
   * @param <W> the world it acts on
   */
  interface Action<W> {
    /** @return what the step does, as one line of the story */
    String describe();

    /** @return whether the step applies to the world as it is now; a step that does not is skipped */
    default boolean possible(W world) {
      return true;
    }

    /** @return whether the step runs calls on several threads together (its outcome depends on their timing) */
    default boolean concurrent() {
      return false;
    }

    /**
     * Acts on the world and checks its invariants.
     *
     * @throws AssertionError when an invariant is broken
     */
    void run(W world);
  }

  /**
   * A step made of its parts, as the properties draw them.
   *
   * @param describe its line of the story
   * @param precondition when it applies
   * @param concurrent whether it runs calls on several threads together
   * @param body what it does
   * @param <W> the world it acts on
   */
  record Step<W>(String describe, Predicate<W> precondition, boolean concurrent, Consumer<W> body)
      implements Action<W> {
    /** @return a step that always applies and runs on one thread */
    static <W> Step<W> always(String describe, Consumer<W> body) {
      return new Step<>(describe, world -> true, false, body);
    }

    /** @return a step that applies when the precondition holds and runs on one thread */
    static <W> Step<W> when(String describe, Predicate<W> precondition, Consumer<W> body) {
      return new Step<>(describe, precondition, false, body);
    }

    @Override
    public boolean possible(W world) {
      return precondition.test(world);
    }

    @Override
    public void run(W world) {
      body.accept(world);
    }

    @Override
    public String toString() {
      return describe;
    }
  }

  /**
   * Draws one of the values, each as often as its weight says (out of their sum).
   *
   * @param weight a value's weight, zero or more; their sum must be positive
   */
  static <T> T weighted(Random random, T[] values, ToIntFunction<T> weight) {
    int total = 0;
    for (T value : values) {
      total += weight.applyAsInt(value);
    }
    int pick = random.nextInt(total);
    for (T value : values) {
      pick -= weight.applyAsInt(value);
      if (pick < 0) {
        return value;
      }
    }
    throw new IllegalStateException("weights changed while drawing");
  }

  /**
   * How a chain failed.
   *
   * @param invariant the invariant broken (see {@link #invariantOf})
   * @param error what the failing step threw
   * @param step the index of the failing step in its chain; the steps after it never ran
   */
  record Failure(String invariant, Throwable error, int step) {}

  /** What {@link #check} found: the first failing try, its chain as drawn and shrunk, and what shrinking cost. */
  record Found(long runSeed, int tryNumber, long trySeed, Duration toFind, List<? extends Action<?>> original,
      Failure originalFailure, List<? extends Action<?>> shrunk, Failure shrunkFailure, int reruns,
      Duration shrinking) {
    /** @return the report a failing property prints */
    String report() {
      return "the property failed at try " + tryNumber + " (" + toFind.toMillis() + " ms into the run) with invariant ["
          + shrunkFailure.invariant() + "]\n"
          + "replay this chain: -Doutbox4j.property.seed=" + trySeed + " -Doutbox4j.property.tries=1"
          + " (the whole run: -Doutbox4j.property.seed=" + runSeed + ")\n\n"
          + "SHRUNK to " + shrunk.size() + " of " + original.size() + " actions in " + reruns + " re-runs ("
          + shrinking.toMillis() + " ms):\n" + shrunkFailure.error().getMessage() + "\n\n"
          + "the chain as drawn (" + original.size() + " actions):\n" + numbered(original) + "\n\n"
          + "ORIGINAL failure:\n" + originalFailure.error().getMessage();
    }

    private static String numbered(List<? extends Action<?>> actions) {
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < actions.size(); i++) {
        out.append(String.format("%3d. %s%n", i + 1, actions.get(i).describe()));
      }
      return out.toString().stripTrailing();
    }
  }

  private final Supplier<W> newWorld;
  private final Function<Random, Action<W>> draw;
  private final int maxActions;
  private final ShrinkBudget budget;

  /**
   * @param newWorld a fresh world for every run of a chain (fresh store, fresh clock)
   * @param draw draws one action from the chain's random source
   * @param maxActions the longest chain; a chain has between half of it and all of it
   * @param budget what shrinking one failure may spend
   */
  ActionChains(Supplier<W> newWorld, Function<Random, Action<W>> draw, int maxActions, ShrinkBudget budget) {
    if (maxActions < 1) {
      throw new IllegalArgumentException("maxActions must be at least 1, was " + maxActions);
    }
    this.newWorld = newWorld;
    this.draw = draw;
    this.maxActions = maxActions;
    this.budget = budget;
  }

  /** @return the chain a try's seed draws */
  List<Action<W>> chain(long trySeed) {
    Random random = new Random(trySeed);
    int length = Math.max(1, maxActions / 2 + random.nextInt(maxActions - maxActions / 2 + 1));
    List<Action<W>> chain = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      chain.add(draw.apply(random));
    }
    return chain;
  }

  /** @return the seed of the try after the one with this seed */
  static long nextSeed(long trySeed) {
    return new Random(trySeed).nextLong();
  }

  /**
   * Runs up to {@code tries} chains and shrinks the first that fails.
   *
   * @return the failure found, or empty when every chain held
   */
  Optional<Found> check(int tries, long runSeed) {
    long started = System.nanoTime();
    long seed = runSeed;
    for (int i = 1; i <= tries; i++, seed = nextSeed(seed)) {
      List<Action<W>> chain = chain(seed);
      Failure failure = runOnce(chain);
      if (failure != null) {
        Duration toFind = Duration.ofNanos(System.nanoTime() - started);
        return Optional.of(shrink(runSeed, i, seed, toFind, chain, failure));
      }
    }
    return Optional.empty();
  }

  /** Runs the chain on a fresh world, skipping actions whose precondition does not hold. */
  @Nullable Failure runOnce(List<Action<W>> chain) {
    W world = newWorld.get();
    int step = 0;
    try {
      for (; step < chain.size(); step++) {
        Action<W> action = chain.get(step);
        if (action.possible(world)) {
          action.run(world);
        }
      }
      return null;
    } catch (AssertionError | RuntimeException e) {
      return new Failure(invariantOf(e), e, step);
    }
  }

  /** Shrinks a failing chain (see the class comment); package-private for the runner's own tests. */
  Found shrink(long runSeed, int tryNumber, long trySeed, Duration toFind, List<Action<W>> original,
      Failure failure) {
    long started = System.nanoTime();
    long deadline = started + budget.time().toNanos();
    int maxReruns = budget.reruns();
    List<Action<W>> current = original.subList(0, failure.step() + 1); // the steps after the failure never ran
    Failure currentFailure = failure;
    int reruns = 0;
    int parts = 2;
    while (current.size() > 1 && reruns < maxReruns && System.nanoTime() < deadline) {
      int size = current.size();
      int chunk = (size + parts - 1) / parts;
      boolean removed = false;
      for (int start = 0; start < size && reruns < maxReruns && System.nanoTime() < deadline; start += chunk) {
        List<Action<W>> candidate = new ArrayList<>(current.subList(0, start));
        candidate.addAll(current.subList(Math.min(size, start + chunk), size));
        if (candidate.isEmpty()) {
          continue;
        }
        int attempts = candidate.stream().anyMatch(Action::concurrent) ? budget.concurrentAttempts() : 1;
        Failure same = null;
        for (int attempt = 0; attempt < attempts && same == null && reruns < maxReruns; attempt++) {
          reruns++;
          Failure found = runOnce(candidate);
          if (found != null && found.invariant().equals(failure.invariant())) {
            same = found;
          }
        }
        if (same != null) {
          current = candidate.subList(0, same.step() + 1);
          currentFailure = same;
          parts = Math.max(parts - 1, 2);
          removed = true;
          break;
        }
      }
      if (!removed) {
        if (chunk == 1) {
          break;
        }
        parts = Math.min(size, parts * 2);
      }
    }
    return new Found(runSeed, tryNumber, trySeed, toFind, List.copyOf(original), failure, List.copyOf(current),
        currentFailure, reruns, Duration.ofNanos(System.nanoTime() - started));
  }

  /** @return the first {@code [name]} in the error's message, or the error's class when it names none */
  static String invariantOf(Throwable error) {
    String message = error.getMessage();
    Matcher matcher = INVARIANT.matcher(message == null ? "" : message);
    return matcher.find() ? matcher.group(1) : error.getClass().getName();
  }
}
