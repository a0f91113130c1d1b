package dev.outbox4j.micrometer;

import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The latest answer of an outbox's stats queries for {@link OutboxMetrics}' gauges, kept fresh without a reader ever
 * waiting for the store: refreshed in the background once per interval (longer while a large backlog is counted,
 * {@link OutboxStats#readingPace}; a failure keeps the interval), and by a read that finds it due; never two queries
 * at once. Why it is built so is {@link OutboxMetrics}' "Why scrapes never block". Thread-safe.
 */
final class StatsSnapshots implements AutoCloseable {
  /** Ticks the background refreshes of every instance; a tick only hands the query to the instance's executor. */
  private static final ScheduledExecutorService TICKS = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "outbox4j-metrics-ticks");
    thread.setDaemon(true);
    return thread;
  });

  private static final System.Logger LOG = System.getLogger(OutboxMetrics.class.getName());

  /**
   * One answer: the outbox's stats and, when destination gauges are on, its destinations' by name.
   *
   * @param takenAt when the answer came (its age counts from then)
   */
  record Snapshot(OutboxStats stats, Map<String, OutboxStats> destinations, Instant takenAt) {}

  private final OutboxStore store;
  private final Clock clock;
  private final Duration refresh;
  private final Executor executor;
  private final int destinations;
  private final Runnable failed;
  private final Consumer<Snapshot> taken;
  private final AtomicReference<@Nullable Snapshot> snapshot = new AtomicReference<>();
  private final AtomicBoolean refreshing = new AtomicBoolean();
  /**
   * The least time between two refreshes: the interval, or longer while the last refresh counted a large backlog
   * ({@link OutboxStats#readingPace}; a zero interval stays zero: every read refreshes; a failed refresh keeps the
   * interval).
   */
  private volatile Duration pace;
  /** When the last refresh was started, so a read does not start another before the pace has passed. */
  private volatile @Nullable Instant lastAttempt;
  /** When {@link #first} first ran: the age of "no snapshot yet". */
  private volatile @Nullable Instant boundAt;
  /** The background refresh, once started; cancelled by {@link #close}. */
  private @Nullable ScheduledFuture<?> ticking;

  /**
   * @param store what to ask
   * @param clock the time source
   * @param refresh the interval; zero: every read refreshes, and nothing ticks
   * @param executor where a refresh runs
   * @param destinations how many destinations to read (0: none, and only the outbox's stats are asked)
   * @param failed told of each failed refresh, on the refreshing thread
   * @param taken told of each new snapshot, on the refreshing thread
   */
  StatsSnapshots(OutboxStore store, Clock clock, Duration refresh, Executor executor, int destinations,
      Runnable failed, Consumer<Snapshot> taken) {
    this.store = store;
    this.clock = clock;
    this.refresh = refresh;
    this.pace = refresh;
    this.executor = executor;
    this.destinations = destinations;
    this.failed = failed;
    this.taken = taken;
  }

  /**
   * Takes the first snapshot on the calling thread, so no gauge is ever read before there are numbers (bounded by the
   * store's query timeout; a failure leaves none and the background refresh tries again).
   */
  void first() {
    synchronized (this) {
      if (boundAt == null) {
        boundAt = clock.instant();
      }
    }
    if (snapshot.get() == null && refreshing.compareAndSet(false, true)) {
      lastAttempt = clock.instant();
      refresh();
    }
  }

  /** Starts one refresh per interval in the background (not for a zero interval: then every read refreshes). */
  synchronized void startTicking() {
    if (ticking != null || refresh.isZero()) {
      return;
    }
    long period = Math.max(1, refresh.toMillis());
    ticking = TICKS.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * A background tick: refreshes unless a read started one within the last half interval, so two refreshes are never
   * more than one interval apart; while a large backlog is counted, not before its pace has passed.
   */
  private void tick() {
    Instant attempted = lastAttempt;
    Duration paced = pace;
    Duration since = paced.compareTo(refresh) > 0 ? paced : refresh.dividedBy(2);
    if (attempted == null || !clock.instant().isBefore(attempted.plus(since))) {
      startRefresh();
    }
  }

  /** @return the latest snapshot (never waiting for the store), after starting a refresh when one is due */
  @Nullable Snapshot current() {
    Instant attempted = lastAttempt;
    if (attempted == null || !clock.instant().isBefore(attempted.plus(pace))) {
      startRefresh();
    }
    return snapshot.get();
  }

  /** @return the latest snapshot, starting nothing */
  @Nullable Snapshot latest() {
    return snapshot.get();
  }

  /** @return when {@link #first} first ran, or {@code null} before */
  @Nullable Instant boundAt() {
    return boundAt;
  }

  /** Starts one refresh on the executor unless one is in flight: never two stats queries at once. */
  private void startRefresh() {
    if (refreshing.compareAndSet(false, true)) {
      lastAttempt = clock.instant();
      try {
        executor.execute(this::refresh);
      } catch (RuntimeException e) {
        refreshing.set(false);
        LOG.log(System.Logger.Level.WARNING, "could not start an outbox stats refresh", e);
      }
    }
  }

  private void refresh() {
    try {
      Instant now = clock.instant();
      Map<String, OutboxStats> byName = new TreeMap<>();
      OutboxStats stats;
      if (destinations > 0) {
        List<DestinationStats> rows = store.destinationStats(now, destinations);
        for (DestinationStats row : rows) {
          byName.put(row.destination(), row.stats());
        }
        // Fewer rows than asked for are every destination with undelivered entries: they add up to the whole.
        stats = rows.size() < destinations
            ? rows.stream().map(DestinationStats::stats).reduce(OutboxStats.EMPTY, OutboxStats::plus)
            : store.stats(now);
      } else {
        stats = store.stats(now);
      }
      pace = refresh.isZero() ? refresh : stats.readingPace(refresh);
      Snapshot answer = new Snapshot(stats, Map.copyOf(byName), clock.instant()); // aged from the answer
      snapshot.set(answer);
      if (destinations > 0) {
        taken.accept(answer);
      }
    } catch (RuntimeException e) {
      failed.run();
      LOG.log(System.Logger.Level.WARNING, "reading outbox stats failed; keeping the last values: " + e);
      pace = refresh; // waiting for a database that does not answer is no load on it: try again at the interval
    } finally {
      refreshing.set(false);
    }
  }

  /** Stops the background refresh; the snapshot stays. Idempotent. */
  @Override
  public synchronized void close() {
    ScheduledFuture<?> current = ticking;
    if (current != null) {
      current.cancel(false);
    }
  }

  /** The default executor: a short-lived daemon thread per refresh. */
  static void startDaemon(Runnable refresh) {
    Thread thread = new Thread(refresh, "outbox4j-metrics-refresh");
    thread.setDaemon(true);
    thread.start();
  }
}
