package dev.outbox4j.relay.runtime;

import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the outbox's state once per interval, for the dashboard and the readiness check, and keeps the last minutes of
 * throughput and lag for the chart.
 *
 * <p>Why one sampler: however many browsers watch the dashboard, the database sees one small stats query per interval,
 * and readiness is the outcome of the latest real query rather than a second probe. On a large backlog that query is
 * slow, so the sampler reads a large backlog less often: a second per {@value OutboxStats#READ_PER_SECOND} undelivered
 * entries its last reading counted, when that is longer than its interval (at most half a minute;
 * {@link OutboxStats#readingPace}), so counting a backlog takes little of the database from the relays draining it. The
 * query is {@link OutboxStore#destinationStats}: while the outbox has fewer destinations with undelivered entries than
 * {@value #DESTINATIONS} (nearly always), their rows add up to the whole outbox, so the whole needs no second query;
 * only beyond that is {@link OutboxStore#stats} asked as well. Delivered-per-second comes from this process's delivered
 * counters, so with several relays on one database each dashboard shows its own relay's rate (the counts and lag are
 * the database's, shared by all).
 *
 * <p>Thread-safe.
 */
public final class StatsSampler implements AutoCloseable {
  /** Samples kept: ten minutes at one per second. */
  public static final int HISTORY = 600;
  /** The most destinations read per sample, the ones most behind first. */
  public static final int DESTINATIONS = 100;

  private final OutboxStore store;
  private final DoubleSupplier deliveredTotal;
  private final Supplier<Map<String, Long>> deliveredByDestination;
  private final Clock clock;
  private final Duration interval;
  /** The wait before the next reading: the interval, or longer while the backlog is large. */
  private volatile Duration pace;
  private final ScheduledExecutorService executor;
  private final ArrayDeque<Sample> history = new ArrayDeque<>();
  private @Nullable Sample latest;
  private @Nullable Instant lastSuccess;
  private @Nullable String lastError;
  private double lastDelivered = Double.NaN;
  private Map<String, Long> lastDeliveredByDestination = Map.of();

  /**
   * One reading.
   *
   * @param at when it was taken
   * @param stats the outbox's counts
   * @param destinations the counts of the destinations with undelivered entries, at most {@value #DESTINATIONS}, the
   *     ones most behind first
   * @param deliveredPerSecond this relay's deliveries per second since the previous reading
   * @param deliveredPerSecondByDestination the same per destination, for those this relay delivered to since it
   *     started
   * @param lagSeconds age of the oldest waiting entry; 0 when none waits
   * @param blockedSeconds age of the oldest entry blocked behind a quarantined or parked entry; 0 when none is
   * @param deliveredTotal this relay's deliveries since it started
   */
  public record Sample(Instant at, OutboxStats stats, List<DestinationStats> destinations, double deliveredPerSecond,
      Map<String, Double> deliveredPerSecondByDestination, double lagSeconds, double blockedSeconds,
      double deliveredTotal) {
    /** Copies the collections. */
    public Sample {
      destinations = List.copyOf(destinations);
      deliveredPerSecondByDestination = Map.copyOf(deliveredPerSecondByDestination);
    }
  }

  /**
   * @param store what to read
   * @param deliveredTotal this relay's delivered count
   * @param deliveredByDestination this relay's delivered count per destination ({@link DestinationDeliveries})
   * @param clock the time source
   * @param interval how often to read; positive
   */
  public StatsSampler(OutboxStore store, DoubleSupplier deliveredTotal,
      Supplier<Map<String, Long>> deliveredByDestination, Clock clock, Duration interval) {
    this.store = store;
    this.deliveredTotal = deliveredTotal;
    this.deliveredByDestination = deliveredByDestination;
    this.clock = clock;
    this.interval = interval;
    this.pace = interval;
    this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "outbox4j-stats");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Takes the first reading on the calling thread (so a dashboard started after this has numbers from its first
   * request; a failure is kept as {@link #lastError}) and then one per interval in the background (or per
   * {@link #pace()}, while the backlog is large).
   */
  public void start() {
    sampleQuietly();
    scheduleNext();
  }

  private void scheduleNext() {
    try {
      executor.schedule(() -> {
        sampleQuietly();
        scheduleNext();
      }, pace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: nothing left to read
    }
  }

  private void sampleQuietly() {
    try {
      sample();
    } catch (RuntimeException e) {
      synchronized (this) {
        lastError = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        pace = interval; // waiting for a database that does not answer is no load on it: try again at the interval
      }
    }
  }

  /**
   * @return the wait before the next background reading: the interval, longer while the last reading counted a large
   *     backlog ({@link OutboxStats#readingPace}; a failed reading keeps the interval)
   */
  public Duration pace() {
    return pace;
  }

  /** Asks for a reading as soon as possible (after an admin action), without waiting for it. */
  public void sampleSoon() {
    try {
      executor.execute(this::sampleQuietly);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: nothing left to refresh
    }
  }

  /** Takes one reading now (also called by the schedule); what it counted sets the {@link #pace()}. */
  public void sample() {
    Instant now = clock.instant();
    List<DestinationStats> destinations = store.destinationStats(now, DESTINATIONS);
    OutboxStats stats = destinations.size() < DESTINATIONS
        ? destinations.stream().map(DestinationStats::stats).reduce(OutboxStats.EMPTY, OutboxStats::plus)
        : store.stats(now);
    double total = deliveredTotal.getAsDouble();
    Map<String, Long> byDestination = Map.copyOf(deliveredByDestination.get());
    synchronized (this) {
      double rate = 0;
      Map<String, Double> rates = new HashMap<>();
      double seconds = latest == null ? 0 : Duration.between(latest.at(), now).toMillis() / 1000.0;
      if (latest != null && !Double.isNaN(lastDelivered)) {
        rate = seconds > 0 ? Math.max(0, total - lastDelivered) / seconds : 0;
      }
      for (Map.Entry<String, Long> entry : byDestination.entrySet()) {
        long before = lastDeliveredByDestination.getOrDefault(entry.getKey(), 0L);
        rates.put(entry.getKey(), latest != null && seconds > 0 ? Math.max(0, entry.getValue() - before) / seconds : 0);
      }
      lastDelivered = total;
      lastDeliveredByDestination = byDestination;
      latest = new Sample(now, stats, destinations, rate, rates, seconds(stats.lag(now)),
          seconds(stats.blockedAge(now)), total);
      history.addLast(latest);
      while (history.size() > HISTORY) {
        history.removeFirst();
      }
      lastSuccess = now;
      pace = stats.readingPace(interval);
      lastError = null;
    }
  }

  private static double seconds(Duration duration) {
    return duration.toMillis() / 1000.0;
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
   * @return {@code true} when the latest reading succeeded and the next is not overdue, two intervals after it was due
   *     ({@link #pace()}; three intervals after the last success while the backlog is small): the database answers
   */
  public synchronized boolean ready() {
    if (lastError != null || lastSuccess == null) {
      return false;
    }
    return !clock.instant().isAfter(lastSuccess.plus(pace).plus(interval.multipliedBy(2)));
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
