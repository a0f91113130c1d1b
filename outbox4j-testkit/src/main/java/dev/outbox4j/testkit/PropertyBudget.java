package dev.outbox4j.testkit;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Sets how many chains {@link ClaimProtocolProperty} tries, and its seed when one is given to replay: the system
 * property {@code outbox4j.property.tries} when set, else the store's {@link ClaimProtocolProperty#defaultTries()} times
 * {@code outbox4j.property.scale} (default 1; the {@code property-nightly} Maven profile sets 25);
 * {@code outbox4j.property.seed}, when set, replays that seed.
 */
public final class PropertyBudget implements AroundPropertyHook {
  /** Used by jqwik. */
  public PropertyBudget() {}

  @Override
  public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
    int tries = context.testInstance() instanceof ClaimProtocolProperty claims ? claims.defaultTries() : 30;
    String scale = System.getProperty("outbox4j.property.scale", "").strip();
    int scaled = tries * (scale.isEmpty() ? 1 : Integer.parseInt(scale));
    context.attributes().setTries(Integer.getInteger("outbox4j.property.tries", scaled));
    String seed = System.getProperty("outbox4j.property.seed", "");
    if (!seed.isBlank()) {
      context.attributes().setSeed(seed.strip());
    }
    return property.execute();
  }
}
