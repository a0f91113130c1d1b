package dev.outbox4j.testkit;

import static org.awaitility.Awaitility.await;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * For outage tests of a transport against its real broker: a {@link RelayListener} that counts what the relay did with
 * failing deliveries (postponed uncharged as an outage, charged as a failure of their own, quarantined), a retry policy
 * whose whole budget is a few seconds, and {@link #holdOutage} to keep the broker away longer than that budget.
 *
 * <p>The claim such a test makes: an outage, however long, is charged to no entry, so nothing is quarantined,
 * everything arrives once the broker is back, and every key keeps its order. Register it with
 * {@code Relay.builder(...).withRetryPolicy(OutageWatch.shortRetryBudget()).onEvent(watch)}.
 *
 * <p>Thread-safe: the relay reports from its own threads.
 */
public final class OutageWatch implements RelayListener {
  /** The time budget of {@link #shortRetryBudget()}: an entry failing for its own reasons this long is given up. */
  public static final Duration RETRY_BUDGET = Duration.ofSeconds(3);
  /** The attempt limit of {@link #shortRetryBudget()}. */
  public static final int MAX_ATTEMPTS = 3;

  private final AtomicInteger postponed = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicInteger quarantined = new AtomicInteger();

  /** Creates a watch with every count at zero. */
  public OutageWatch() {}

  /**
   * @return a retry policy spent within seconds: {@value #MAX_ATTEMPTS} attempts, 50 ms doubling to 500 ms apart, and
   *     at most {@link #RETRY_BUDGET} of failing; a relay that charged an outage to its entries would quarantine them
   *     long before a {@link #holdOutage} ends
   */
  public static RetryPolicy shortRetryBudget() {
    return RetryPolicy.exponential().withBase(Duration.ofMillis(50)).withCap(Duration.ofMillis(500))
        .withMaxAttempts(MAX_ATTEMPTS).withGiveUpAfter(RETRY_BUDGET).build();
  }

  /**
   * Cuts the proxy, waits until the relay has seen the outage (an entry postponed) and until the outage has lasted
   * {@code outage}, then restores the proxy (also when the wait fails).
   *
   * @param proxy the proxy between the transport and its broker
   * @param outage how long the broker stays away; longer than {@link #RETRY_BUDGET} to prove the point
   * @throws org.awaitility.core.ConditionTimeoutException if the relay never postponed anything within a minute
   */
  public void holdOutage(TcpProxy proxy, Duration outage) {
    long start = System.nanoTime();
    proxy.cut();
    try {
      await().atMost(outage.plus(Duration.ofMinutes(1))).pollInterval(Duration.ofMillis(20)).until(() ->
          postponed.get() > 0 && Duration.ofNanos(System.nanoTime() - start).compareTo(outage) >= 0);
    } finally {
      proxy.restore();
    }
  }

  @Override
  public void onPostponed(OutboxEntry entry, String reason, Instant nextAttemptAt) {
    postponed.incrementAndGet();
  }

  @Override
  public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
    failed.incrementAndGet();
  }

  @Override
  public void onQuarantined(OutboxEntry entry, String reason) {
    quarantined.incrementAndGet();
  }

  /** @return deliveries handed back uncharged because the transport as a whole was failing */
  public int postponed() {
    return postponed.get();
  }

  /** @return deliveries charged an attempt as failures of their own */
  public int failed() {
    return failed.get();
  }

  /** @return entries quarantined */
  public int quarantined() {
    return quarantined.get();
  }
}
