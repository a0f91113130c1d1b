package dev.outbox4j.relay.runtime;

import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the outbox's state once per interval, for the dashboard and the readiness check, and keeps the last minutes of
 * throughput and lag for the chart.
 *
 * <p>Why one sampler: however many browsers watch the dashboard, the database sees one small stats query per interval,
 * and readiness is the outcome of the latest real query rather than a second probe. Delivered-per-second comes from
 * this process's delivered counter, so with several relays on one database each dashboard shows its own relay's rate
 * (the counts and lag are the database's, shared by all).
 *
 * <p>Thread-safe.
 */
public final class StatsSampler implements AutoCloseable {
  /** Samples kept: ten minutes at one per second. */
  public static final int HISTORY = 600;

  private final OutboxStore store;
  private final DoubleSupplier deliveredTotal;
  private final Clock clock;
  private final Duration interval;
  private final ScheduledExecutorService executor;
  private final ArrayDeque<Sample> history = new ArrayDeque<>();
  private @Nullable Sample latest;
  private @Nullable Instant lastSuccess;
  private @Nullable String lastError;
  private double lastDelivered = Double.NaN;

  /**
   * One reading.
   *
   * @param at when it was taken
   * @param stats the outbox's counts
   * @param deliveredPerSecond this relay's deliveries per second since the previous reading
   * @param lagSeconds age of the oldest waiting entry; 0 when none waits
   * @param deliveredTotal this relay's deliveries since it started
   */
  public record Sample(Instant at, OutboxStats stats, double deliveredPerSecond, double lagSeconds,
      double deliveredTotal) {}

  /**
   * @param store what to read
   * @param deliveredTotal this relay's delivered count
   * @param clock the time source
   * @param interval how often to read; positive
   */
  public StatsSampler(OutboxStore store, DoubleSupplier deliveredTotal, Clock clock, Duration interval) {
    this.store = store;
    this.deliveredTotal = deliveredTotal;
    this.clock = clock;
    this.interval = interval;
    this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "outbox4j-stats");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Takes the first reading now and then one per interval. */
  public void start() {
    executor.scheduleWithFixedDelay(this::sampleQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void sampleQuietly() {
    try {
      sample();
    } catch (RuntimeException e) {
      synchronized (this) {
        lastError = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      }
    }
  }

  /** Asks for a reading as soon as possible (after an admin action), without waiting for it. */
  public void sampleSoon() {
    try {
      executor.execute(this::sampleQuietly);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: nothing left to refresh
    }
  }

  /** Takes one reading now (also called by the schedule). */
  public void sample() {
    Instant now = clock.instant();
    OutboxStats stats = store.stats(now);
    double total = deliveredTotal.getAsDouble();
    double lag = stats.oldestPending().map(oldest -> Math.max(0, Duration.between(oldest, now).toMillis() / 1000.0))
        .orElse(0.0);
    synchronized (this) {
      double rate = 0;
      if (latest != null && !Double.isNaN(lastDelivered)) {
        double seconds = Duration.between(latest.at(), now).toMillis() / 1000.0;
        rate = seconds > 0 ? Math.max(0, total - lastDelivered) / seconds : 0;
      }
      lastDelivered = total;
      latest = new Sample(now, stats, rate, lag, total);
      history.addLast(latest);
      while (history.size() > HISTORY) {
        history.removeFirst();
      }
      lastSuccess = now;
      lastError = null;
    }
  }

  /** @return the latest reading, or {@code null} before the first succeeded */
  public synchronized @Nullable Sample latest() {
    return latest;
  }

  /** @return the readings of the last ten minutes, oldest first */
  public synchronized List<Sample> history() {
    return new ArrayList<>(history);
  }

  /**
   * @return {@code true} when the latest reading succeeded within three intervals: the database answers
   */
  public synchronized boolean ready() {
    return lastError == null && lastSuccess != null
        && !clock.instant().isAfter(lastSuccess.plus(interval.multipliedBy(3)));
  }

  /** @return why the latest reading failed, or {@code null} */
  public synchronized @Nullable String lastError() {
    return lastError;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
