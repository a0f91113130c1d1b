package dev.outbox4j;

import java.time.Duration;

/**
 * Waits for a while. The relay pauses through it while the transport is down (see
 * {@link RelayBuilder#withSleeper(Sleeper)}), so a test can pass one that moves a settable clock instead of waiting.
 *
 * <p>Implementations must be thread-safe and must answer an interrupt by throwing {@link InterruptedException}:
 * {@link Relay#close()} interrupts a background worker that is pausing.
 */
@FunctionalInterface
public interface Sleeper {

  /**
   * @param duration how long to wait; zero or positive
   * @throws InterruptedException if the waiting thread was interrupted
   */
  void sleep(Duration duration) throws InterruptedException;

  /** @return the real sleeper: {@link Thread#sleep(long, int)} */
  static Sleeper system() {
    return duration -> {
      if (!duration.isNegative() && !duration.isZero()) {
        Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
      }
    };
  }
}
