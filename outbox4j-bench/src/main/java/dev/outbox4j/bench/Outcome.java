package dev.outbox4j.bench;

import org.jspecify.annotations.Nullable;

/**
 * What one execution of a scenario did.
 *
 * @param messages messages processed (the CPU per message divides by this)
 * @param operations timed operations inside the run (claims in the claim-cost scenario), or 0
 * @param operationNanos the summed time of those operations
 * @param latencies commit-to-transport latencies in nanoseconds, sorted, or {@code null} when not measured
 */
record Outcome(long messages, long operations, long operationNanos, long @Nullable [] latencies) {
  static Outcome of(long messages) {
    return new Outcome(messages, 0, 0, null);
  }
}
