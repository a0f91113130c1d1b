package dev.outbox4j.micrometer;

import dev.outbox4j.BatchReport;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.RelayListener;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Publishes a relay's events and an outbox's state as Micrometer meters. Register it twice: as a
 * {@link RelayListener} on the relay ({@code Relay.builder(...).onEvent(metrics)}) and as a {@link MeterBinder} on the
 * registry ({@code metrics.bindTo(registry)}).
 *
 * <table>
 *   <caption>Meters (all tagged {@code outbox}, plus any common tags given)</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code outbox4j.delivered}</td><td>counter</td><td>entries confirmed and retired</td></tr>
 *   <tr><td>{@code outbox4j.failed}</td><td>counter</td><td>attempts that failed and were scheduled again</td></tr>
 *   <tr><td>{@code outbox4j.postponed}</td><td>counter</td><td>entries handed back uncharged while the transport
 *   as a whole was failing (an outage)</td></tr>
 *   <tr><td>{@code outbox4j.quarantined}</td><td>counter</td><td>entries that stopped being retried</td></tr>
 *   <tr><td>{@code outbox4j.claims.lost}</td><td>counter</td><td>outcomes not recorded because the claim was
 *   lost</td></tr>
 *   <tr><td>{@code outbox4j.relay.errors}</td><td>counter</td><td>background passes that failed</td></tr>
 *   <tr><td>{@code outbox4j.delivery}</td><td>timer</td><td>send to confirmation, per entry</td></tr>
 *   <tr><td>{@code outbox4j.batch}</td><td>timer, tag {@code phase}=claim|delivery|completion</td><td>per
 *   pass</td></tr>
 *   <tr><td>{@code outbox4j.waiting}</td><td>gauge</td><td>entries waiting for delivery, not blocked (claimed ones
 *   included)</td></tr>
 *   <tr><td>{@code outbox4j.blocked}</td><td>gauge</td><td>entries behind a quarantined or parked entry of their key:
 *   they move only once an operator acts</td></tr>
 *   <tr><td>{@code outbox4j.pending}</td><td>gauge</td><td>waiting plus blocked</td></tr>
 *   <tr><td>{@code outbox4j.in.flight}</td><td>gauge</td><td>entries under an unexpired claim</td></tr>
 *   <tr><td>{@code outbox4j.quarantine.size}</td><td>gauge</td><td>quarantined and parked entries</td></tr>
 *   <tr><td>{@code outbox4j.lag}</td><td>gauge, seconds</td><td>age of the oldest waiting entry (blocked ones left
 *   out); 0 when none waits</td></tr>
 *   <tr><td>{@code outbox4j.blocked.age}</td><td>gauge, seconds</td><td>age of the oldest blocked entry; 0 when none
 *   is blocked</td></tr>
 *   <tr><td>{@code outbox4j.stats.age}</td><td>gauge, seconds</td><td>how old the snapshot behind the outbox gauges
 *   is (before any snapshot: how long since {@link #bindTo}); grows while the database cannot answer</td></tr>
 *   <tr><td>{@code outbox4j.stats.failures}</td><td>counter</td><td>stats queries that failed</td></tr>
 *   <tr><td>{@code outbox4j.destination.paused}</td><td>gauge, tag {@code destination}</td><td>1 for each destination
 *   a relay has paused (all of its deliveries failing alike); the row is removed when it resumes</td></tr>
 *   <tr><td>{@code outbox4j.destination.paused.duration}</td><td>gauge, seconds, tag {@code destination}</td><td>how
 *   long each paused destination has been paused</td></tr>
 *   <tr><td>{@code outbox4j.destination.waiting}, {@code outbox4j.destination.blocked},
 *   {@code outbox4j.destination.lag}</td><td>gauges, tag {@code destination}</td><td>per destination with undelivered
 *   entries (at most {@link Builder#withDestinationGauges}): waiting, blocked, and the age of its oldest waiting entry
 *   in seconds</td></tr>
 * </table>
 *
 * <h2>Why paused destinations are rows that come and go</h2>
 * A relay may see thousands of destinations; a gauge per destination that ever existed would grow without bound. So
 * the two destination gauges carry one row per destination that is paused now, added by
 * {@link #onDestinationPaused} and removed by {@link #onDestinationResumed}: no row means no paused destination, and
 * no value is ever NaN. When several relays share one instance, a destination's rows stay while any of them has it
 * paused, and its duration counts from the earliest pause. A relay closed while a destination is paused reports no
 * resume: its rows stay until that destination resumes in another relay sharing this instance.
 *
 * <h2>Why the per-destination gauges are bounded</h2>
 * They come from {@link OutboxStore#destinationStats}, read with the outbox's stats at each refresh: one row per
 * destination with undelivered entries, the ones most behind first, at most the configured number (default
 * {@value #DEFAULT_DESTINATION_GAUGES}). A destination whose entries are all delivered loses its rows at the next
 * refresh, so a series that disappears means nothing waits there. {@code withDestinationGauges(0)} turns them off,
 * and the second query with them.
 *
 * <h2>Why scrapes never block, and never read NaN</h2>
 * The gauges show a snapshot of {@link OutboxStore#stats}; reading a gauge never queries the store on the scraping
 * thread. The first snapshot is taken in {@link #bindTo}, on the binding thread, before any gauge is registered, so the
 * first scrape already has real numbers. After that a refresh runs in the background once per refresh interval (default
 * 5 s; ticks on one shared daemon thread, the query itself on the executor, default a short-lived daemon thread), so
 * while the database answers a scrape sees values at most one refresh interval old (plus the query's own time); a read
 * that finds the snapshot older than that starts a refresh too. On a large backlog the query is slow (it reads every
 * undelivered entry), so a large backlog is read less often: a second per {@value OutboxStats#READ_PER_SECOND} entries
 * the last refresh counted, when that is longer than the interval (at most half a minute;
 * {@link OutboxStats#readingPace}), so counting a backlog takes little of the database from the relays draining it.
 * With destination gauges on, one query answers both while fewer destinations than their limit have undelivered entries
 * (their rows add up to the whole). During a database outage a stats query can wait for the pool's connection timeout
 * or the store's query timeout; the scrape does not wait with it, at most one query is in flight however often the
 * registry is scraped or the ticks come, the gauges keep their last values, and {@code outbox4j.stats.age} shows how
 * stale they are (alert on it), while {@code outbox4j.stats.failures} counts the failed queries. If not even the first
 * query has answered, the outbox gauges read {@value #NO_ANSWER} (a count or an age cannot be negative, so no alert on
 * {@code > N} fires on it) and {@code outbox4j.stats.age} counts from {@link #bindTo}. No gauge reads NaN. A busy
 * Prometheus cannot turn into a load on the database either.
 *
 * <p>Thread-safe.
 */
public final class OutboxMetrics implements RelayListener, MeterBinder, AutoCloseable {
  /** Default time between two background stats queries. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(5);
  /** Default most destinations with gauges of their own. */
  public static final int DEFAULT_DESTINATION_GAUGES = 100;
  /** What the outbox gauges read before the first stats query has answered: a count or age cannot be negative. */
  public static final double NO_ANSWER = -1;
  private final Clock clock;
  private final Tags tags;
  private final int destinationGauges;
  private final StatsSnapshots snapshots;
  private volatile @Nullable Meters meters;
  private volatile @Nullable Counter statsFailures;
  /** Paused destinations by name. Guarded by itself, as are the two gauges' rows. */
  private final Map<String, Paused> paused = new TreeMap<>();
  private volatile @Nullable MultiGauge pausedFlags;
  private volatile @Nullable MultiGauge pausedDurations;
  private volatile @Nullable MultiGauge destinationWaiting;
  private volatile @Nullable MultiGauge destinationBlocked;
  private volatile @Nullable MultiGauge destinationLag;

  /** One paused destination: since when, and how many relays sharing this instance have it paused. */
  private static final class Paused {
    Instant since;
    int relays;

    Paused(Instant since) {
      this.since = since;
    }
  }

  private record Meters(Counter delivered, Counter failed, Counter postponed, Counter quarantined, Counter claimsLost, Counter errors,
      Timer delivery, Timer claim, Timer deliveryPhase, Timer completion) {}

  private OutboxMetrics(Builder builder) {
    this.clock = builder.clock;
    this.tags = Tags.of("outbox", builder.name).and(builder.tags);
    this.destinationGauges = builder.destinationGauges;
    this.snapshots = new StatsSnapshots(builder.store, builder.clock, builder.refresh, builder.executor,
        builder.destinationGauges, this::statsFailed, this::publishDestinations);
  }

  /**
   * @param store the outbox whose state the gauges show
   * @return a builder
   */
  public static Builder builder(OutboxStore store) {
    return new Builder(store);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    statsFailures = Counter.builder("outbox4j.stats.failures").description("stats queries that failed").tags(tags)
        .register(registry);
    snapshots.first();
    meters = new Meters(
        Counter.builder("outbox4j.delivered").description("entries confirmed and retired").tags(tags)
            .register(registry),
        Counter.builder("outbox4j.failed").description("attempts failed and scheduled again").tags(tags)
            .register(registry),
        Counter.builder("outbox4j.postponed").description("entries handed back uncharged during an outage")
            .tags(tags).register(registry),
        Counter.builder("outbox4j.quarantined").description("entries that stopped being retried").tags(tags)
            .register(registry),
        Counter.builder("outbox4j.claims.lost").description("outcomes dropped because the claim was lost").tags(tags)
            .register(registry),
        Counter.builder("outbox4j.relay.errors").description("background passes that failed").tags(tags)
            .register(registry),
        Timer.builder("outbox4j.delivery").description("send to confirmation").tags(tags).register(registry),
        Timer.builder("outbox4j.batch").tags(tags).tag("phase", "claim").register(registry),
        Timer.builder("outbox4j.batch").tags(tags).tag("phase", "delivery").register(registry),
        Timer.builder("outbox4j.batch").tags(tags).tag("phase", "completion").register(registry));
    Gauge.builder("outbox4j.waiting", this, m -> m.read(OutboxStats::waiting))
        .description("entries waiting for delivery, not blocked").tags(tags).register(registry);
    Gauge.builder("outbox4j.blocked", this, m -> m.read(OutboxStats::blocked))
        .description("entries behind a quarantined or parked entry of their key").tags(tags).register(registry);
    Gauge.builder("outbox4j.pending", this, m -> m.read(OutboxStats::pending))
        .description("entries waiting or blocked").tags(tags).register(registry);
    Gauge.builder("outbox4j.in.flight", this, m -> m.read(OutboxStats::inFlight))
        .description("entries under an unexpired claim").tags(tags).register(registry);
    Gauge.builder("outbox4j.quarantine.size", this, m -> m.read(OutboxStats::quarantined))
        .description("quarantined entries").tags(tags).register(registry);
    Gauge.builder("outbox4j.lag", this, m -> m.seconds(OutboxStats::lag))
        .description("age of the oldest waiting entry").baseUnit("seconds").tags(tags).register(registry);
    Gauge.builder("outbox4j.blocked.age", this, m -> m.seconds(OutboxStats::blockedAge))
        .description("age of the oldest blocked entry").baseUnit("seconds").tags(tags).register(registry);
    Gauge.builder("outbox4j.stats.age", this, OutboxMetrics::snapshotAgeSeconds)
        .description("age of the snapshot behind the outbox gauges").baseUnit("seconds").tags(tags)
        .register(registry);
    synchronized (paused) {
      pausedFlags = MultiGauge.builder("outbox4j.destination.paused")
          .description("1 for each destination paused because all of its deliveries fail").tags(tags)
          .register(registry);
      pausedDurations = MultiGauge.builder("outbox4j.destination.paused.duration")
          .description("how long each paused destination has been paused").baseUnit("seconds").tags(tags)
          .register(registry);
      publishPausedLocked();
    }
    if (destinationGauges > 0) {
      destinationWaiting = MultiGauge.builder("outbox4j.destination.waiting")
          .description("entries waiting for delivery to each destination, not blocked").tags(tags).register(registry);
      destinationBlocked = MultiGauge.builder("outbox4j.destination.blocked")
          .description("entries for each destination behind a quarantined or parked entry of their key").tags(tags)
          .register(registry);
      destinationLag = MultiGauge.builder("outbox4j.destination.lag")
          .description("age of each destination's oldest waiting entry").baseUnit("seconds").tags(tags)
          .register(registry);
      StatsSnapshots.Snapshot current = snapshots.latest();
      if (current != null) {
        publishDestinations(current);
      }
    }
    snapshots.startTicking();
  }

  /** Stops the background refresh; the gauges keep their last values. Idempotent. */
  @Override
  public void close() {
    snapshots.close();
  }

  /** Sets the per-destination gauges' rows to the destinations of a new snapshot. */
  private synchronized void publishDestinations(StatsSnapshots.Snapshot current) {
    MultiGauge waiting = destinationWaiting;
    MultiGauge blocked = destinationBlocked;
    MultiGauge lag = destinationLag;
    if (waiting == null || blocked == null || lag == null) {
      return;
    }
    List<MultiGauge.Row<?>> waitingRows = new ArrayList<>();
    List<MultiGauge.Row<?>> blockedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> lagRows = new ArrayList<>();
    for (String destination : current.destinations().keySet()) {
      Tags tag = Tags.of("destination", destination);
      waitingRows.add(MultiGauge.Row.of(tag, this, m -> m.readDestination(destination, s -> s.waiting())));
      blockedRows.add(MultiGauge.Row.of(tag, this, m -> m.readDestination(destination, s -> s.blocked())));
      lagRows.add(MultiGauge.Row.of(tag, this,
          m -> m.readDestination(destination, s -> s.lag(m.clock.instant()).toNanos() / 1e9)));
    }
    waiting.register(waitingRows, true);
    blocked.register(blockedRows, true);
    lag.register(lagRows, true);
  }

  /** @return a destination's value from the snapshot (0 once it has no row there), starting a refresh when due */
  private double readDestination(String destination, java.util.function.ToDoubleFunction<OutboxStats> reading) {
    StatsSnapshots.Snapshot current = snapshots.current();
    OutboxStats stats = current == null ? null : current.destinations().get(destination);
    return stats == null ? 0 : reading.applyAsDouble(stats);
  }

  /** Sets the destination gauges' rows to the paused destinations. Called holding {@link #paused}. */
  private void publishPausedLocked() {
    MultiGauge flags = pausedFlags;
    MultiGauge durations = pausedDurations;
    if (flags == null || durations == null) {
      return;
    }
    List<MultiGauge.Row<?>> flagRows = new ArrayList<>();
    List<MultiGauge.Row<?>> durationRows = new ArrayList<>();
    for (Map.Entry<String, Paused> entry : paused.entrySet()) {
      Tags destination = Tags.of("destination", entry.getKey());
      Instant since = entry.getValue().since;
      flagRows.add(MultiGauge.Row.of(destination, 1));
      durationRows.add(MultiGauge.Row.of(destination, this, m -> m.secondsSince(since)));
    }
    flags.register(flagRows, true);
    durations.register(durationRows, true);
  }

  private double secondsSince(Instant since) {
    return Math.max(0, Duration.between(since, clock.instant()).toNanos() / 1e9);
  }

  private double snapshotAgeSeconds() {
    StatsSnapshots.Snapshot current = snapshots.latest();
    Instant since = current != null ? current.takenAt() : snapshots.boundAt();
    return since == null ? 0 : secondsSince(since);
  }

  private double seconds(java.util.function.BiFunction<OutboxStats, Instant, Duration> age) {
    OutboxStats stats = statsOrNull();
    if (stats == null) {
      return NO_ANSWER;
    }
    return age.apply(stats, clock.instant()).toNanos() / 1e9;
  }

  private double read(java.util.function.ToLongFunction<OutboxStats> reading) {
    OutboxStats stats = statsOrNull();
    return stats == null ? NO_ANSWER : reading.applyAsLong(stats);
  }

  /** @return the snapshot's stats (never waiting for the store), after starting a refresh when it is due */
  private @Nullable OutboxStats statsOrNull() {
    StatsSnapshots.Snapshot current = snapshots.current();
    return current == null ? null : current.stats();
  }

  private void statsFailed() {
    Counter failures = statsFailures;
    if (failures != null) {
      failures.increment();
    }
  }

  @Override
  public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
    Meters m = meters;
    if (m != null) {
      m.delivered().increment();
      m.delivery().record(deliveryTime);
    }
  }

  @Override
  public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
    Meters m = meters;
    if (m != null) {
      m.failed().increment();
    }
  }

  @Override
  public void onPostponed(OutboxEntry entry, String reason, Instant nextAttemptAt) {
    Meters m = meters;
    if (m != null) {
      m.postponed().increment();
    }
  }

  @Override
  public void onQuarantined(OutboxEntry entry, String reason) {
    Meters m = meters;
    if (m != null) {
      m.quarantined().increment();
    }
  }

  @Override
  public void onClaimLost(OutboxEntry entry) {
    Meters m = meters;
    if (m != null) {
      m.claimsLost().increment();
    }
  }

  @Override
  public void onDestinationPaused(DestinationStatus status) {
    synchronized (paused) {
      Paused destination = paused.computeIfAbsent(status.destination(), d -> new Paused(status.pausedSince()));
      destination.relays++;
      if (status.pausedSince().isBefore(destination.since)) {
        destination.since = status.pausedSince();
      }
      publishPausedLocked();
    }
  }

  @Override
  public void onDestinationResumed(String destination, Duration pausedFor) {
    synchronized (paused) {
      Paused resumed = paused.get(destination);
      if (resumed == null || --resumed.relays > 0) {
        return;
      }
      paused.remove(destination);
      publishPausedLocked();
    }
  }

  @Override
  public void onBatch(BatchReport report) {
    Meters m = meters;
    if (m != null) {
      m.claim().record(report.claimTime());
      m.deliveryPhase().record(report.deliveryTime());
      m.completion().record(report.completionTime());
    }
  }

  @Override
  public void onError(Throwable error) {
    Meters m = meters;
    if (m != null) {
      m.errors().increment();
    }
  }

  /** Configures {@link OutboxMetrics}. Not thread-safe. */
  public static final class Builder {
    private final OutboxStore store;
    private String name = "default";
    private Tags tags = Tags.empty();
    private Clock clock = Clock.systemUTC();
    private Duration refresh = DEFAULT_REFRESH;
    private java.util.concurrent.Executor executor = StatsSnapshots::startDaemon;
    private int destinationGauges = DEFAULT_DESTINATION_GAUGES;

    private Builder(OutboxStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * @param outboxName the value of the {@code outbox} tag, to tell several outboxes apart; default {@code default}
     * @return this builder
     */
    public Builder withName(String outboxName) {
      if (outboxName == null || outboxName.isBlank()) {
        throw new IllegalArgumentException("name must be non-blank");
      }
      this.name = outboxName;
      return this;
    }

    /**
     * @param extraTags tags added to every meter
     * @return this builder
     */
    public Builder withTags(Iterable<io.micrometer.core.instrument.Tag> extraTags) {
      this.tags = Tags.of(extraTags);
      return this;
    }

    /**
     * @param source the time for stats queries and lag; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock source) {
      this.clock = Objects.requireNonNull(source, "clock");
      return this;
    }

    /**
     * @param interval how often the stats are queried in the background (a read that finds the snapshot older
     *     starts a query too), and so the most a scrape's values lag behind while the database answers; default 5 s;
     *     zero: no background queries, every read queries
     * @return this builder
     */
    public Builder withRefreshInterval(Duration interval) {
      if (interval.isNegative()) {
        throw new IllegalArgumentException("refreshInterval must not be negative, was " + interval);
      }
      this.refresh = interval;
      return this;
    }

    /**
     * @param refresher where stats refreshes run, one at a time; default a new daemon thread per refresh (about one
     *     per refresh interval). {@code Runnable::run} refreshes on the thread that asked (a scrape, or the shared
     *     tick thread), which blocks it during a database outage: for tests only.
     * @return this builder
     */
    public Builder withExecutor(java.util.concurrent.Executor refresher) {
      this.executor = Objects.requireNonNull(refresher, "executor");
      return this;
    }

    /**
     * @param maxDestinations the most destinations with gauges of their own ({@code outbox4j.destination.waiting},
     *     {@code .blocked}, {@code .lag}), the ones most behind first; default {@value #DEFAULT_DESTINATION_GAUGES};
     *     0 turns them off (and the per-destination query with them); at most
     *     {@value DestinationStats#MAX_LIMIT}
     * @return this builder
     */
    public Builder withDestinationGauges(int maxDestinations) {
      if (maxDestinations < 0 || maxDestinations > DestinationStats.MAX_LIMIT) {
        throw new IllegalArgumentException("destinationGauges must be 0.." + DestinationStats.MAX_LIMIT + ", was "
            + maxDestinations);
      }
      this.destinationGauges = maxDestinations;
      return this;
    }

    /** @return the metrics, not yet bound to a registry */
    public OutboxMetrics build() {
      return new OutboxMetrics(this);
    }
  }
}
