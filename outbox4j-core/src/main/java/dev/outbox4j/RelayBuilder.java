package dev.outbox4j;

import dev.outbox4j.internal.DefaultRelay;
import dev.outbox4j.internal.RelaySettings;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Configures a {@link Relay}. Not thread-safe; {@link #build()} copies the configuration into an immutable,
 * thread-safe relay and rejects out-of-range options with a message naming them.
 */
public final class RelayBuilder {
  /** Default entries claimed per pass. */
  public static final int DEFAULT_BATCH_SIZE = 200;
  /**
   * Default lease: how long a claim holds: 30 s, or three times the delivery timeout when that is longer.
   */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  /**
   * Default longest wait for one delivery's confirmation: 10 s, or the transport's {@link Transport#maxAnswerTime()}
   * when that is longer.
   */
  public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(10);
  /** Default first pause while the transport is down: 1 s. */
  public static final Duration DEFAULT_OUTAGE_BASE = Duration.ofSeconds(1);
  /** Default longest pause while the transport is down: 30 s. */
  public static final Duration DEFAULT_OUTAGE_CAP = Duration.ofSeconds(30);
  /** Default deliveries in flight at once, across keys. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 256;
  /** Default shortest idle poll. */
  public static final Duration DEFAULT_MIN_POLL = Duration.ofMillis(10);
  /** Default longest idle poll. */
  public static final Duration DEFAULT_MAX_POLL = Duration.ofSeconds(1);
  /** Default grace period for deliveries in flight at {@link Relay#close()}. */
  public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);
  /** Default pause of the background worker after a partial batch: 2 ms. */
  public static final Duration DEFAULT_BATCH_LINGER = Duration.ofMillis(2);
  /** Default interval between purges of delivered entries (only when the store keeps them). */
  public static final Duration DEFAULT_PURGE_INTERVAL = Duration.ofMinutes(1);

  private final OutboxStore store;
  private final Transport transport;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private @Nullable Duration lease;
  private @Nullable Duration deliveryTimeout;
  private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
  private RetryPolicy retryPolicy = RetryPolicy.ofDefaults();
  private Clock clock = Clock.systemUTC();
  private RandomGenerator random = RandomGenerator.getDefault();
  private Sleeper sleeper = Sleeper.system();
  private Duration outageBase = DEFAULT_OUTAGE_BASE;
  private Duration outageCap = DEFAULT_OUTAGE_CAP;
  private Executor executor = Runnable::run;
  private ThreadFactory threadFactory = runnable -> {
    Thread thread = new Thread(runnable, "outbox4j-relay");
    thread.setDaemon(true);
    return thread;
  };
  private Duration minPoll = DEFAULT_MIN_POLL;
  private Duration maxPoll = DEFAULT_MAX_POLL;
  private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
  private Duration purgeInterval = DEFAULT_PURGE_INTERVAL;
  private int workers = 1;
  private Duration batchLinger = DEFAULT_BATCH_LINGER;
  private final List<RelayListener> listeners = new ArrayList<>();
  private final Map<String, CloudEventsMapping> cloudEvents = new LinkedHashMap<>();

  RelayBuilder(OutboxStore store, Transport transport) {
    this.store = Objects.requireNonNull(store, "store");
    this.transport = Objects.requireNonNull(transport, "transport");
  }

  /**
   * @param size entries claimed per pass, 1 to 10,000; default {@value #DEFAULT_BATCH_SIZE}
   * @return this builder
   */
  public RelayBuilder withBatchSize(int size) {
    this.batchSize = size;
    return this;
  }

  /**
   * @param duration how long a claim holds; default 30 s, or three times the delivery timeout when that is longer.
   *     Must exceed the delivery timeout (a delivery that outlives its lease may be sent again by another relay) and
   *     be at least the transport's {@link Transport#maxAnswerTime()}: the lease is what keeps a dead relay's send
   *     from being overtaken. {@link #build()} refuses anything shorter.
   * @return this builder
   */
  public RelayBuilder withLease(Duration duration) {
    this.lease = Objects.requireNonNull(duration, "lease");
    return this;
  }

  /**
   * @param timeout the longest wait for one delivery's outcome; an unanswered delivery counts as a retryable failure;
   *     default 10 s, or the transport's {@link Transport#maxAnswerTime()} when that is longer; must be below the
   *     lease and at least the transport's {@code maxAnswerTime()} ({@link #build()} refuses anything else: giving up
   *     on a send that may still land would let its late copy overtake the next message of its key)
   * @return this builder
   */
  public RelayBuilder withDeliveryTimeout(Duration timeout) {
    this.deliveryTimeout = Objects.requireNonNull(timeout, "deliveryTimeout");
    return this;
  }

  /**
   * @param count deliveries in flight at once across keys; default {@value #DEFAULT_MAX_IN_FLIGHT}
   * @return this builder
   */
  public RelayBuilder withMaxInFlight(int count) {
    this.maxInFlight = count;
    return this;
  }

  /**
   * @param policy when to retry and when to quarantine; default {@link RetryPolicy#ofDefaults()}
   * @return this builder
   */
  public RelayBuilder withRetryPolicy(RetryPolicy policy) {
    this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
    return this;
  }

  /**
   * @param source the time for claims, leases and retry schedules; default the UTC system clock. Tests pass a settable
   *     clock and never sleep.
   * @return this builder
   */
  public RelayBuilder withClock(Clock source) {
    this.clock = Objects.requireNonNull(source, "clock");
    return this;
  }

  /**
   * @param generator the source of retry and outage-pause jitter; default {@link RandomGenerator#getDefault()}
   * @return this builder
   */
  public RelayBuilder withRandom(RandomGenerator generator) {
    this.random = Objects.requireNonNull(generator, "random");
    return this;
  }

  /**
   * @param pause how the relay waits while the transport is down (between probe passes of the background worker and of
   *     {@link Relay#drain(int)}); default {@link Sleeper#system()}. Tests pass one that moves a settable clock.
   * @return this builder
   */
  public RelayBuilder withSleeper(Sleeper pause) {
    this.sleeper = Objects.requireNonNull(pause, "sleeper");
    return this;
  }

  /**
   * While a destination as a whole is failing, the relay charges no attempt to any of its entries, pauses it, and
   * probes it with a small batch. The pause starts at {@code base}, doubles per failed probe up to {@code cap}, and is
   * drawn between half and all of that (equal jitter). Postponed entries come back one unjittered step later.
   *
   * <p>The cap is also the window of the outage judgement: a destination that has confirmed nothing for that long while
   * its deliveries fail is judged down (also when it has a single entry to try), and a failure counts against its
   * message only while the destination confirmed another message within it (docs/relay.md, "How an outage is told
   * from poison").
   *
   * @param base the first pause; positive; default 1 s
   * @param cap the longest pause, and the judgement's window; at least the base; default 30 s
   * @return this builder
   */
  public RelayBuilder withOutageBackoff(Duration base, Duration cap) {
    this.outageBase = Objects.requireNonNull(base, "outageBase");
    this.outageCap = Objects.requireNonNull(cap, "outageCap");
    return this;
  }

  /**
   * @param dispatcher where {@link Transport#deliver} is called; default the relay's own thread, right for transports
   *     that return at once. Give a pool to run a blocking transport for several keys at once. The relay hands it at
   *     most {@code maxInFlight} deliveries that have not begun to run, and the thread that runs one checks the send
   *     cutoff again right before {@code deliver}: a delivery that waited past it (or past its deadline) is not sent
   *     but handed back to the store uncharged.
   * @return this builder
   */
  public RelayBuilder withExecutor(Executor dispatcher) {
    this.executor = Objects.requireNonNull(dispatcher, "executor");
    return this;
  }

  /**
   * @param factory makes the relay's threads: the background worker's, and the one each worker (or {@code drain} call)
   *     claims its next batch ahead on; default daemon threads named {@code outbox4j-relay}
   * @return this builder
   */
  public RelayBuilder withThreadFactory(ThreadFactory factory) {
    this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
    return this;
  }

  /**
   * @param min the first idle poll after work; default 10 ms
   * @param max the ceiling the idle poll backs off to; default 1 s
   * @return this builder
   */
  public RelayBuilder withPollInterval(Duration min, Duration max) {
    this.minPoll = Objects.requireNonNull(min, "minPoll");
    this.maxPoll = Objects.requireNonNull(max, "maxPoll");
    return this;
  }

  /**
   * @param grace how long {@link Relay#close()} lets deliveries in flight finish; default 10 s
   * @return this builder
   */
  public RelayBuilder withShutdownGrace(Duration grace) {
    this.shutdownGrace = Objects.requireNonNull(grace, "shutdownGrace");
    return this;
  }

  /**
   * @param interval how often the background worker purges delivered entries past their retention (only when the
   *     store keeps them); default 1 min
   * @return this builder
   */
  public RelayBuilder withPurgeInterval(Duration interval) {
    this.purgeInterval = Objects.requireNonNull(interval, "purgeInterval");
    return this;
  }

  /**
   * @param linger how long the background worker waits after a pass that claimed a partial batch before the next
   *     pass; default 2 ms; zero to go again at once. Every commit may wake the relay; without a pause, a steady stream
   *     of small commits costs one claim and one completion statement per commit. The pause adds at most this much
   *     latency and lets entries accumulate into larger batches. Does not apply to {@link Relay#flush()} or
   *     {@link Relay#drain(int)}.
   * @return this builder
   */
  public RelayBuilder withBatchLinger(Duration linger) {
    this.batchLinger = Objects.requireNonNull(linger, "batchLinger");
    return this;
  }

  /**
   * @param count background worker threads started by {@link Relay#start()}, each running passes; default 1. More than
   *     one overlaps one pass's claim with another's deliveries, and keeps a pass waiting on a slow delivery from
   *     stalling the rest. Order per key is unaffected: the store never hands out two entries of one key at once.
   * @return this builder
   */
  public RelayBuilder withWorkers(int count) {
    this.workers = count;
    return this;
  }

  /**
   * @param listener receives the relay's events; may be called several times to add several listeners
   * @return this builder
   */
  public RelayBuilder onEvent(RelayListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Sends the messages of one destination as CloudEvents 1.0 (off by default: a destination without a mapping is
   * delivered exactly as before, with no CloudEvents header). The relay then calls
   * {@link Transport#deliver(dev.outbox4j.Message, dev.outbox4j.spi.CloudEvent)}; the attribute mapping is described
   * on {@link dev.outbox4j.spi.CloudEvent}.
   *
   * @param destination the destination, as messages name it; non-blank
   * @param mapping its {@code source}, {@code type} and content mode; replaces an earlier mapping of the destination
   * @return this builder
   * @throws IllegalArgumentException if the destination is blank
   */
  public RelayBuilder withCloudEvents(String destination, CloudEventsMapping mapping) {
    Objects.requireNonNull(destination, "destination");
    if (destination.isBlank()) {
      throw new IllegalArgumentException("CloudEvents destination must not be blank");
    }
    cloudEvents.put(destination, Objects.requireNonNull(mapping, "mapping"));
    return this;
  }

  /**
   * @return the relay, not yet started
   * @throws IllegalArgumentException naming the first option out of range, for example a delivery timeout or lease
   *     shorter than the transport's {@link Transport#maxAnswerTime()} (naming both values)
   */
  public Relay build() {
    Duration maxAnswerTime = transport.maxAnswerTime();
    if (maxAnswerTime == null || maxAnswerTime.isNegative()) {
      throw new IllegalArgumentException("transport " + transport.getClass().getName()
          + " reports a maxAnswerTime of " + maxAnswerTime + "; it must be zero or positive");
    }
    Duration deliveryTimeout = this.deliveryTimeout != null
        ? this.deliveryTimeout
        : max(DEFAULT_DELIVERY_TIMEOUT, maxAnswerTime);
    Duration lease = this.lease != null ? this.lease : max(DEFAULT_LEASE, deliveryTimeout.multipliedBy(3));
    if (batchSize < 1 || batchSize > 10_000) {
      throw new IllegalArgumentException("batchSize must be 1..10000, was " + batchSize);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be positive, was " + maxInFlight);
    }
    requirePositive("lease", lease);
    requirePositive("deliveryTimeout", deliveryTimeout);
    if (deliveryTimeout.compareTo(maxAnswerTime) < 0) {
      throw new IllegalArgumentException("deliveryTimeout (" + deliveryTimeout + ") is shorter than the transport's"
          + " maxAnswerTime (" + maxAnswerTime + "): a send given up on could still land and overtake the next message"
          + " of its key; use at least " + maxAnswerTime + " (or leave deliveryTimeout unset)");
    }
    if (lease.compareTo(maxAnswerTime) < 0) {
      throw new IllegalArgumentException("lease (" + lease + ") is shorter than the transport's maxAnswerTime ("
          + maxAnswerTime + "): another relay could claim an entry while a copy of its send may still land");
    }
    if (deliveryTimeout.compareTo(lease) >= 0) {
      throw new IllegalArgumentException(
          "deliveryTimeout (" + deliveryTimeout + ") must be below the lease (" + lease + ")");
    }
    requirePositive("outageBase", outageBase);
    if (outageCap.compareTo(outageBase) < 0 || outageCap.compareTo(RetryPolicy.MAX_CAP) > 0) {
      throw new IllegalArgumentException("outageCap (" + outageCap + ") must be between outageBase (" + outageBase
          + ") and " + RetryPolicy.MAX_CAP);
    }
    requirePositive("minPoll", minPoll);
    if (maxPoll.compareTo(minPoll) < 0) {
      throw new IllegalArgumentException("maxPoll (" + maxPoll + ") must not be below minPoll (" + minPoll + ")");
    }
    if (shutdownGrace.isNegative()) {
      throw new IllegalArgumentException("shutdownGrace must not be negative, was " + shutdownGrace);
    }
    requirePositive("purgeInterval", purgeInterval);
    if (batchLinger.isNegative() || batchLinger.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException("batchLinger must be 0..1s, was " + batchLinger);
    }
    if (workers < 1 || workers > 64) {
      throw new IllegalArgumentException("workers must be 1..64, was " + workers);
    }
    return new DefaultRelay(new RelaySettings(store, transport, maxAnswerTime, batchSize, lease, deliveryTimeout,
        maxInFlight, retryPolicy, clock, random, sleeper, outageBase, outageCap, executor, threadFactory, minPoll,
        maxPoll, shutdownGrace, purgeInterval, batchLinger, workers, List.copyOf(listeners), Map.copyOf(cloudEvents)));
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static void requirePositive(String name, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
