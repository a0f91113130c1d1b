package dev.outbox4j.testkit;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.RelayListener;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RelayListener} that counts failed delivery attempts ({@link RelayListener#onFailed}), for outage tests that
 * wait until the relay has seen the outage and assert that the failures were retried. Register it with
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

  /** @return failed delivery attempts reported so far */
  public int get() {
    return count.get();
  }
}
