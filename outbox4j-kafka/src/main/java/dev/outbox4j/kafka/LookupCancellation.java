package dev.outbox4j.kafka;

import java.util.concurrent.CancellationException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Lets one look-up of the progress topic be stopped from another thread, wherever it waits: a cancelled look-up's
 * consumer is woken out of {@code poll} ({@link Consumer#wakeup()}, the one call a Kafka consumer takes from another
 * thread) and its pending admin call is cancelled, so its thread and its consumer are free at once rather than when the
 * transactions it waits behind end.
 *
 * <p>Thread-safe.
 */
final class LookupCancellation {
  private boolean cancelled;
  private @Nullable Consumer<?, ?> consumer;
  private @Nullable Future<?> call;

  /** Stops the look-up: wakes its consumer, cancels its admin call; later waits end at once. Idempotent. */
  synchronized void cancel() {
    cancelled = true;
    if (consumer != null) {
      consumer.wakeup();
    }
    if (call != null) {
      call.cancel(true);
    }
  }

  /** @return whether {@link #cancel()} was called */
  synchronized boolean cancelled() {
    return cancelled;
  }

  /** @throws CancellationException if the look-up was cancelled */
  synchronized void check() {
    if (cancelled) {
      throw new CancellationException("the look-up of the progress topic was cancelled");
    }
  }

  /** Makes {@code reader} woken by a cancellation, until {@link #release}; woken at once if already cancelled. */
  synchronized void watch(Consumer<?, ?> reader) {
    consumer = reader;
    if (cancelled) {
      reader.wakeup();
    }
  }

  /** Forgets the consumer (before it is closed). */
  synchronized void release() {
    consumer = null;
  }

  /**
   * @param pending an admin call about to be waited for
   * @return {@code pending}, cancelled at once if the look-up already was, and by a later cancellation otherwise
   */
  synchronized <F extends Future<?>> F watch(F pending) {
    call = pending;
    if (cancelled) {
      pending.cancel(true);
    }
    return pending;
  }
}
