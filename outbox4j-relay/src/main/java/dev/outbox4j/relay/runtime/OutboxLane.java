package dev.outbox4j.relay.runtime;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.micrometer.OutboxMetrics;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.doctor.DoctorOutput;
import dev.outbox4j.relay.doctor.RelayDoctor;
import dev.outbox4j.spi.Transport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One outbox of a relay process: its pool (shared with the other outboxes of its database), store, relay, metrics,
 * stats sampler and wake-up, started and closed together.
 *
 * <h2>Why a lane</h2>
 * Each outbox has its own relay with its own worker threads ({@code relay.workers}, named
 * {@code outbox4j-relay-<outbox>}), so no outbox waits in another's queue; the outboxes share the process's CPU
 * through {@link FairShare}, which holds a busy outbox's sends and connections back while a lighter one has its turn.
 * Its transports are its own instances of the configured ones (a tenants entry's tenants share theirs). A database
 * that is down, slow or unreadable holds only the threads and pool of the outboxes in it.
 *
 * <p>Its stats (the dashboard's sampler and the metrics) are read every second, a tenant outbox's every
 * {@value #TENANT_STATS_SECONDS} seconds: fifty quiet tenants would otherwise cost the database a hundred stats queries
 * a second, far more than their claims.
 *
 * <p>A lane whose database cannot be reached at start keeps trying in the background ({@link #startInBackground}),
 * half a second at first and doubling to five seconds; until it runs, {@link #state()} is {@code STARTING} with the
 * last error, so the process serves and the other lanes run meanwhile.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class OutboxLane implements AutoCloseable {
  /** Where a lane is. */
  public enum State {
    /** Its database has not been reached yet; it keeps trying. */
    STARTING,
    /** Its relay runs. */
    RUNNING,
    /** Closed. */
    CLOSED
  }

  /** How often a tenant outbox's stats are read, in seconds. */
  static final int TENANT_STATS_SECONDS = 5;

  private static final System.Logger LOG = System.getLogger(OutboxLane.class.getName());

  private final String name;
  private final RelayConfig config;
  private final Map<String, Transport> transports;
  private final MeterRegistry registry;
  private final SharedPools pools;
  private final WakeUps wakeUps;
  private final FairShare fairShare;
  private final List<RelayListener> extraListeners;
  private final Clock clock;
  private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final CountDownLatch firstAttempt = new CountDownLatch(1);
  private volatile State state = State.STARTING;
  private volatile @Nullable String lastError;
  private volatile @Nullable Running running;

  /** What a running lane has. */
  record Running(HikariDataSource pool, JdbcOutboxStore store, Relay relay, StatsSampler sampler, Counter delivered) {}

  OutboxLane(String name, RelayConfig config, Map<String, Transport> transports, MeterRegistry registry,
      SharedPools pools, WakeUps wakeUps, FairShare fairShare, List<RelayListener> extraListeners, Clock clock) {
    this.name = name;
    this.config = config;
    this.transports = transports;
    this.registry = registry;
    this.pools = pools;
    this.wakeUps = wakeUps;
    this.fairShare = fairShare;
    this.extraListeners = List.copyOf(extraListeners);
    this.clock = clock;
  }

  /** @return the outbox's name */
  public String name() {
    return name;
  }

  /** @return the configuration of this outbox alone */
  public RelayConfig config() {
    return config;
  }

  /** @return where the lane is */
  public State state() {
    return state;
  }

  /** @return why the lane is not running yet, or {@code null} */
  public @Nullable String lastError() {
    return lastError;
  }

  /** @return the store, or {@code null} until the lane runs */
  public @Nullable JdbcOutboxStore store() {
    Running now = running;
    return now == null ? null : now.store();
  }

  /** @return the relay, or {@code null} until the lane runs */
  public @Nullable Relay relay() {
    Running now = running;
    return now == null ? null : now.relay();
  }

  /** @return the stats sampler, or {@code null} until the lane runs */
  public @Nullable StatsSampler sampler() {
    Running now = running;
    return now == null ? null : now.sampler();
  }

  /** @return the destinations its relay paused; empty until it runs */
  public List<DestinationStatus> pausedDestinations() {
    Running now = running;
    return now == null ? List.of() : now.relay().pausedDestinations();
  }

  /** @return entries this lane delivered since it started */
  public long deliveredCount() {
    Running now = running;
    return now == null ? 0 : (long) now.delivered().count();
  }

  /** @return the doctor's JSON findings for this outbox */
  public Map<String, Object> doctor() {
    Running now = running;
    if (now == null) {
      return Map.of("outbox", name, "error", String.valueOf(lastError));
    }
    return DoctorOutput.json(RelayDoctor.examine(config, now.pool(), clock), config.database().displayUrl(),
        RelayDoctor.lease(config));
  }

  /**
   * Starts at once: the database is waited for up to {@code database.startup-wait}.
   *
   * @throws RuntimeException what the start failed with; the lane holds nothing then
   */
  void startNow() {
    try {
      HikariDataSource pool = RelayAssembly.dataSourceOnceReachable(config.database(), "outbox4j-relay");
      closeables.push(pool);
      begin(pool);
    } finally {
      firstAttempt.countDown();
    }
  }

  /** Starts on a thread of its own, trying again until the database answers or the lane is closed. */
  void startInBackground() {
    Thread starter = new Thread(this::keepStarting, "outbox4j-start-" + name);
    starter.setDaemon(true);
    starter.start();
  }

  /**
   * @param timeout the longest wait
   * @return whether the lane's first attempt to start ended (ran, or failed and keeps trying) within it
   */
  boolean awaitFirstAttempt(Duration timeout) throws InterruptedException {
    return firstAttempt.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void keepStarting() {
    Duration pause = Duration.ofMillis(500);
    while (stop.getCount() > 0) {
      try {
        HikariDataSource pool = pools.acquire(name, config.database(), "outbox4j-relay-" + name);
        closeables.push(() -> pools.release(pool));
        // One start at a time per pool: migrations and the doctor take more than one connection each, and fifty
        // tenants starting at once on a pool of ten would each hold one and wait for another.
        synchronized (pool) {
          synchronized (this) {
            if (state == State.CLOSED) {
              closeQuietly();
              return;
            }
            begin(pool);
          }
        }
        firstAttempt.countDown();
        return;
      } catch (RuntimeException e) {
        closeQuietly();
        lastError = RelayAssembly.rootMessage(e);
        LOG.log(System.Logger.Level.WARNING, "outbox " + name + ": " + e.getMessage() + "; trying again in "
            + pause.toMillis() + " ms");
      }
      firstAttempt.countDown();
      try {
        if (stop.await(pause.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      pause = pause.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5)
          : pause.multipliedBy(2);
    }
  }

  /** What the single-outbox runtime did at start, in the same order, for this outbox. */
  private void begin(HikariDataSource pool) {
    FairShare.Lane share = fairShare.join(name);
    closeables.push(share);
    JdbcOutboxStore store = RelayAssembly.store(share.gated(pool), config.database());
    // Closed after the relay (last in, first out); it holds nothing, every claim lives in the database.
    closeables.push(store);
    RelayAssembly.checkPostgresOnly(config, store);
    if (config.database().migrate()) {
      store.migrate();
    }
    RelayAssembly.installPostgresTriggers(config, store);
    if (config.database().notifyTrigger() && !config.relay().listenNotify()) {
      LOG.log(System.Logger.Level.WARNING, "database.notify-trigger is on but relay.listen-notify is off: the trigger"
          + " notifies, and this relay does not listen");
    }
    logDoctorFindings(pool);
    RoutingTransport transport = RelayAssembly.routing(config, transports);
    StartReport.log(config, transport.named());
    Duration statsInterval = name.indexOf(RelayConfig.TENANT_SEPARATOR) < 0 ? Duration.ofSeconds(1)
        : Duration.ofSeconds(TENANT_STATS_SECONDS);
    OutboxMetrics metrics = OutboxMetrics.builder(store).withName(name).withRefreshInterval(statsInterval)
        .withClock(clock).build();
    closeables.push(metrics);
    metrics.bindTo(registry); // takes the first stats snapshot: the first scrape has numbers
    Counter delivered = registry.get("outbox4j.delivered").tag("outbox", name).counter();
    DestinationDeliveries deliveries = new DestinationDeliveries();
    List<RelayListener> listeners = new ArrayList<>();
    listeners.add(metrics);
    listeners.add(deliveries);
    listeners.addAll(extraListeners);
    listeners.add(share.listener());
    Relay relay = RelayAssembly.relay(store, share.counting(transport), config, listeners, name, share.executor());
    StatsSampler sampler = new StatsSampler(store, delivered::count, deliveries::totals, clock, statsInterval);
    closeables.push(sampler);
    relay.start();
    closeables.push(relay);
    if (config.relay().listenNotify()) {
      closeables.push(wakeUps.listen(config.database(), store, relay::wakeUp, share::woken));
    }
    sampler.start();
    running = new Running(pool, store, relay, sampler, delivered);
    state = State.RUNNING;
    lastError = null;
  }

  private void logDoctorFindings(HikariDataSource pool) {
    try {
      RelayDoctor.log(RelayDoctor.examine(config, pool, clock));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "doctor could not run: " + e.getMessage());
    }
  }

  /**
   * Stops: the wake-up, the relay (deliveries in flight get the grace period), the sampler, the metrics, the store, and
   * gives the pool back. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
      running = null;
    }
    stop.countDown();
    closeQuietly();
  }

  private synchronized void closeQuietly() {
    while (!closeables.isEmpty()) {
      try {
        closeables.pop().close();
      } catch (Exception e) {
        LOG.log(System.Logger.Level.WARNING, "closing outbox " + name + " failed", e);
      }
    }
  }
}
