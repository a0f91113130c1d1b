package dev.outbox4j.testkit;

import java.util.concurrent.ThreadLocalRandom;

/**
 * How many chains {@link ClaimProtocolProperty} tries, and from which seed: the system property
 * {@code outbox4j.property.tries} when set, else the store's {@link ClaimProtocolProperty#defaultTries()} times
 * {@code outbox4j.property.scale} (default 1; the {@code property-nightly} Maven profile sets 25); the run seed is
 * {@code outbox4j.property.seed} when set (to replay a printed seed), else a random one; shrinking spends
 * {@link ActionChains.ShrinkBudget#DEFAULT} unless {@code outbox4j.property.shrink-reruns} or
 * {@code outbox4j.property.shrink-attempts} (runs of a candidate with a concurrent group) say otherwise.
 *
 * <p>Thread-safe: stateless.
 */
final class PropertyBudget {
  private PropertyBudget() {}

  /** @return the number of chains to try */
  static int tries(int defaultTries) {
    String scale = System.getProperty("outbox4j.property.scale", "").strip();
    int scaled = defaultTries * (scale.isEmpty() ? 1 : Integer.parseInt(scale));
    int tries = Integer.getInteger("outbox4j.property.tries", scaled);
    if (tries < 1) {
      throw new IllegalArgumentException("outbox4j.property.tries must be at least 1, was " + tries);
    }
    return tries;
  }

  /** @return the run's seed */
  static long runSeed() {
    String seed = System.getProperty("outbox4j.property.seed", "").strip();
    return seed.isEmpty() ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seed);
  }

  /** @return what shrinking one failure may spend */
  static ActionChains.ShrinkBudget shrinking() {
    ActionChains.ShrinkBudget standard = ActionChains.ShrinkBudget.DEFAULT;
    return new ActionChains.ShrinkBudget(Integer.getInteger("outbox4j.property.shrink-reruns", standard.reruns()),
        Integer.getInteger("outbox4j.property.shrink-attempts", standard.concurrentAttempts()), standard.time());
  }
}
