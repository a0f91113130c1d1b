package dev.outbox4j.testkit;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.RelayListener;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RelayListener} that counts failed delivery attempts, for outage tests that wait until the relay has seen the
 * outage and assert that the failures were retried: both those charged to an entry ({@link RelayListener#onFailed})
 * and those the relay recognised as an outage and handed back uncharged ({@link RelayListener#onPostponed}). Register
 * it with
 * {@code Relay.builder(...).onEvent(failures)}.
 *
 * <p>Thread-safe: the relay reports from its own threads.
 */
public final class FailedAttempts implements RelayListener {
  private final AtomicInteger count = new AtomicInteger();

  /** Creates a counter at zero. */
  public FailedAttempts() {}

  @Override
  public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
    count.incrementAndGet();
  }

  @Override
  public void onPostponed(OutboxEntry entry, String reason, Instant nextAttemptAt) {
    count.incrementAndGet();
  }

  /** @return failed delivery attempts reported so far, charged or postponed */
  public int get() {
    return count.get();
  }
}
