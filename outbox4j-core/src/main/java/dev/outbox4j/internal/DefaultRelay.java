package dev.outbox4j.internal;

import dev.outbox4j.BatchReport;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RelayResult;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The relay engine. Not API.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Ordering lives in the store, not here.</b> A claim returns at most one entry per ordering key, and only the
 *       key's oldest undelivered entry. So every entry of a batch may be sent at once: no two of them can be ordered
 *       relative to each other. The relay needs no per-key queues, and several relays (or several threads calling
 *       {@link #flush()}) stay correct without talking to each other.
 *   <li><b>Send the whole batch, then wait.</b> Transports return a stage and confirm asynchronously, so a batch costs
 *       about one broker round trip, not one per message. A semaphore bounds the deliveries in flight.
 *   <li><b>Only a confirmation retires an entry.</b> A delivery that times out counts as a retryable failure; one still
 *       unanswered when shutdown gives up is left claimed, untouched, and its lease expiry hands it to the next relay.
 *       Marking it delivered would turn an unconfirmed publish into a lost message.
 *   <li><b>Completions are batched.</b> Confirmed entries are retired in one store call per wave of answers (all of a
 *       batch when the broker answers promptly; otherwise what arrived within 100 ms, so one slow delivery never keeps
 *       the rest of its batch unrecorded); failures, which should be rare, are recorded one by one because each has
 *       its own error and schedule.
 *   <li><b>Time is injected.</b> The clock decides claims, leases and retry schedules, so tests drive retries by
 *       moving a settable clock. Only the waits for a broker's answer and the idle poll use real time.
 * </ul>
 */
public final class DefaultRelay implements Relay {
  private static final System.Logger LOG = System.getLogger(DefaultRelay.class.getName());
  private static final int PURGE_BATCH = 1000;
  private static final int PURGE_ROUNDS = 10;
  private static final int MAX_ERROR_LENGTH = 2000;
  /** How long answers are gathered before the ones that arrived are recorded. */
  private static final Duration WAVE = Duration.ofMillis(100);

  /** The relay's configuration, copied from the builder. */
  public record Settings(
      OutboxStore store,
      Transport transport,
      int batchSize,
      Duration lease,
      Duration deliveryTimeout,
      int maxInFlight,
      RetryPolicy retryPolicy,
      Clock clock,
      RandomGenerator random,
      Executor executor,
      ThreadFactory threadFactory,
      Duration minPoll,
      Duration maxPoll,
      Duration shutdownGrace,
      Duration purgeInterval,
      Duration batchLinger,
      int workers,
      List<RelayListener> listeners) {}

  private enum State { NEW, RUNNING, STOPPING, CLOSED }

  private final Settings settings;
  private final OutboxStore store;
  private final Semaphore inFlight;
  private final Semaphore wakeSignal = new Semaphore(0);
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  /** Completed when shutdown stops waiting for unconfirmed deliveries. */
  private final CompletableFuture<Void> abandon = new CompletableFuture<>();
  /** Released by {@link #close()}: cuts short the batch linger. */
  private final java.util.concurrent.CountDownLatch stopping = new java.util.concurrent.CountDownLatch(1);
  /** Completed when every background worker has stopped. */
  private final CompletableFuture<Void> workerDone = new CompletableFuture<>();
  private final java.util.concurrent.atomic.AtomicInteger workersRunning = new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicReference<@Nullable Instant> lastPurge = new AtomicReference<>();

  /** @param settings the configuration, already validated by the builder */
  public DefaultRelay(Settings settings) {
    this.settings = settings;
    this.store = settings.store();
    this.inFlight = new Semaphore(settings.maxInFlight());
  }

  @Override
  public RelayResult flush() {
    return pass();
  }

  @Override
  public RelayResult drain(int maxPasses) {
    if (maxPasses < 1) {
      throw new IllegalArgumentException("maxPasses must be positive, was " + maxPasses);
    }
    RelayResult total = RelayResult.EMPTY;
    for (int i = 0; i < maxPasses; i++) {
      RelayResult result = pass();
      total = total.plus(result);
      if (result.claimed() == 0) {
        break;
      }
    }
    return total;
  }

  @Override
  public void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("relay already " + state.get().name().toLowerCase(java.util.Locale.ROOT));
    }
    workersRunning.set(settings.workers());
    for (int i = 0; i < settings.workers(); i++) {
      settings.threadFactory().newThread(this::runWorker).start();
    }
  }

  @Override
  public void wakeUp() {
    if (wakeSignal.availablePermits() < settings.workers()) {
      wakeSignal.release();
    }
  }

  @Override
  public boolean isRunning() {
    State current = state.get();
    return current == State.RUNNING || current == State.STOPPING;
  }

  @Override
  public void close() {
    State previous = state.getAndUpdate(s -> s == State.RUNNING ? State.STOPPING : s == State.NEW ? State.CLOSED : s);
    if (previous == State.NEW) {
      return;
    }
    stopping.countDown();
    wakeSignal.release(settings.workers());
    try {
      awaitWorker(settings.shutdownGrace());
      if (!workerDone.isDone()) {
        abandon.complete(null);
        awaitWorker(Duration.ofSeconds(5));
      }
    } catch (InterruptedException e) {
      abandon.complete(null);
      Thread.currentThread().interrupt();
    }
    state.set(State.CLOSED);
  }

  private void awaitWorker(Duration timeout) throws InterruptedException {
    try {
      workerDone.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      // still running (or failed, which runWorker never does): the caller decides what follows
    }
  }

  // ------------------------------------------------------------------------------------------------ worker

  private void runWorker() {
    Duration idle = settings.minPoll();
    try {
      while (state.get() == State.RUNNING) {
        int claimed = 0;
        try {
          claimed = pass().claimed();
          purgeIfDue();
          idle = claimed > 0 ? settings.minPoll() : idle;
        } catch (RuntimeException e) {
          notifyListeners(l -> l.onError(e));
          LOG.log(System.Logger.Level.WARNING, "relay pass failed; backing off " + idle, e);
        }
        if (claimed >= settings.batchSize()) {
          continue; // a full batch: more is probably waiting
        }
        if (claimed > 0) {
          // A partial batch: let a little more arrive before the next pass, so a stream of small commits (each of which
          // wakes the relay) is claimed in batches rather than one pass per commit. Only shutdown cuts this short.
          if (!settings.batchLinger().isZero()) {
            stopping.await(settings.batchLinger().toNanos(), TimeUnit.NANOSECONDS);
          }
          wakeSignal.drainPermits();
          continue;
        }
        if (wakeSignal.tryAcquire(idle.toNanos(), TimeUnit.NANOSECONDS)) {
          idle = settings.minPoll();
        } else {
          idle = min(idle.multipliedBy(2), settings.maxPoll());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (workersRunning.decrementAndGet() == 0) {
        workerDone.complete(null);
      }
    }
  }

  private void purgeIfDue() {
    if (store.retention().deletesOnDelivery()) {
      return;
    }
    Instant now = settings.clock().instant();
    Instant last = lastPurge.get();
    if (last != null && now.isBefore(last.plus(settings.purgeInterval()))) {
      return;
    }
    if (!lastPurge.compareAndSet(last, now)) {
      return; // another worker purges
    }
    for (int round = 0; round < PURGE_ROUNDS; round++) {
      if (store.purgeDelivered(now, PURGE_BATCH) < PURGE_BATCH) {
        break;
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ one pass

  private RelayResult pass() {
    long started = System.nanoTime();
    Instant now = settings.clock().instant();
    List<Claim> claims = store.claim(settings.batchSize(), now, settings.lease());
    if (claims.isEmpty()) {
      return RelayResult.EMPTY;
    }
    long claimed = System.nanoTime();
    // Answers must arrive while the claims still hold: a tenth of the lease is kept as a margin for recording them.
    long leaseDeadline = started + settings.lease().toNanos() - settings.lease().toNanos() / 10;
    List<Delivery> waiting = dispatch(claims, leaseDeadline);
    RelayResult result = new RelayResult(claims.size(), 0, 0, 0, 0);
    long recording = 0;
    while (!waiting.isEmpty()) {
      awaitWave(waiting);
      List<Delivery> answered = new ArrayList<>();
      expireOverdue(waiting);
      for (Delivery delivery : waiting) {
        if (delivery.outcome.isDone()) {
          answered.add(delivery);
        }
      }
      long recordStart = System.nanoTime();
      result = result.plus(record(answered));
      recording += System.nanoTime() - recordStart;
      waiting.removeAll(answered);
      if (abandon.isDone()) {
        break; // shutdown gave up: what is still unanswered stays claimed and unmarked
      }
    }
    long finished = System.nanoTime();
    BatchReport report = new BatchReport(result, Duration.ofNanos(claimed - started),
        Duration.ofNanos(finished - claimed - recording), Duration.ofNanos(recording));
    notifyListeners(l -> l.onBatch(report));
    return result;
  }

  /** One claimed entry on its way: the outcome arrives in {@link #outcome}. */
  private static final class Delivery {
    final Claim claim;
    final CompletableFuture<DeliveryOutcome> outcome = new CompletableFuture<>();
    final long sentAt = System.nanoTime();
    final long deadline;
    volatile long answeredAt;

    Delivery(Claim claim, Duration timeout, long leaseDeadline) {
      this.claim = claim;
      long own = sentAt + timeout.toNanos();
      this.deadline = own - leaseDeadline < 0 ? own : leaseDeadline;
    }
  }

  private List<Delivery> dispatch(List<Claim> claims, long leaseDeadline) {
    List<Delivery> deliveries = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      if (!acquireInFlightPermit(deliveries)) {
        break; // shutting down and out of patience: the rest stay claimed and unsent
      }
      if (System.nanoTime() - leaseDeadline >= 0) {
        // Too late to send inside the lease: leave the rest unsent; their leases expire and they are claimed again.
        inFlight.release();
        break;
      }
      Delivery delivery = new Delivery(claim, settings.deliveryTimeout(), leaseDeadline);
      deliveries.add(delivery);
      delivery.outcome.whenComplete((outcome, error) -> {
            delivery.answeredAt = System.nanoTime();
            inFlight.release();
          });
      try {
        settings.executor().execute(() -> send(delivery));
      } catch (RuntimeException rejected) {
        delivery.outcome.complete(DeliveryOutcome.retryable("dispatch rejected: " + describe(rejected)));
      }
    }
    return deliveries;
  }

  /** Gives every delivery past its deadline a timeout outcome, which also frees its in-flight permit. */
  private void expireOverdue(List<Delivery> deliveries) {
    long now = System.nanoTime();
    for (Delivery delivery : deliveries) {
      if (!delivery.outcome.isDone() && now - delivery.deadline >= 0) {
        delivery.outcome.complete(DeliveryOutcome.retryable(
            "no confirmation within " + settings.deliveryTimeout() + " or inside the lease"));
      }
    }
  }

  private boolean acquireInFlightPermit(List<Delivery> dispatched) {
    try {
      while (!inFlight.tryAcquire(10, TimeUnit.MILLISECONDS)) {
        if (abandon.isDone()) {
          return false;
        }
        expireOverdue(dispatched); // a full window of silent deliveries must not wait forever for a permit
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void send(Delivery delivery) {
    try {
      settings.transport().deliver(delivery.claim.message()).whenComplete((outcome, error) -> {
        if (error != null) {
          delivery.outcome.complete(DeliveryOutcome.retryable(describe(unwrap(error))));
        } else if (outcome == null) {
          delivery.outcome.complete(DeliveryOutcome.retryable("transport completed without an outcome"));
        } else {
          delivery.outcome.complete(outcome);
        }
      });
    } catch (RuntimeException | Error e) {
      delivery.outcome.complete(DeliveryOutcome.retryable(describe(e)));
    }
  }

  /**
   * Waits until every delivery answered, a wave period passed, or shutdown gave up. Answers that arrive together are
   * recorded together (one store call for all confirmations), while one slow delivery cannot keep the confirmed rest
   * of its batch unrecorded for longer than a wave.
   */
  private void awaitWave(List<Delivery> deliveries) {
    CompletableFuture<?>[] outcomes = new CompletableFuture<?>[deliveries.size()];
    long earliestDeadline = Long.MAX_VALUE;
    for (int i = 0; i < outcomes.length; i++) {
      Delivery delivery = deliveries.get(i);
      outcomes[i] = delivery.outcome;
      earliestDeadline = Math.min(earliestDeadline, delivery.deadline);
    }
    long wait = Math.max(0, Math.min(WAVE.toNanos(), earliestDeadline - System.nanoTime()));
    try {
      CompletableFuture.anyOf(CompletableFuture.allOf(outcomes), abandon).get(wait, TimeUnit.NANOSECONDS);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      // a wave ended with deliveries still unanswered, or one failed: record what has answered
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      abandon.complete(null);
    }
  }

  private RelayResult record(List<Delivery> deliveries) {
    List<Claim> confirmed = new ArrayList<>();
    List<Delivery> confirmedDeliveries = new ArrayList<>();
    int failed = 0;
    int quarantined = 0;
    int lost = 0;
    Instant now = settings.clock().instant();
    for (Delivery delivery : deliveries) {
      DeliveryOutcome outcome = outcomeOf(delivery);
      Claim claim = delivery.claim;
      if (outcome instanceof DeliveryOutcome.Delivered) {
        confirmed.add(claim);
        confirmedDeliveries.add(delivery);
      } else if (outcome instanceof DeliveryOutcome.Permanent permanent) {
        String reason = truncate("permanent failure: " + permanent.reason());
        if (quarantine(claim, dev.outbox4j.QuarantineReason.permanentFailure(reason))) {
          quarantined++;
        } else {
          lost++;
        }
      } else if (outcome instanceof DeliveryOutcome.Retryable retryable) {
        int attempts = claim.entry().attempts() + 1;
        if (settings.retryPolicy().isExhausted(attempts)) {
          String reason = truncate("gave up after " + attempts + " attempts: " + retryable.reason());
          if (quarantine(claim, dev.outbox4j.QuarantineReason.retriesExhausted(reason))) {
            quarantined++;
          } else {
            lost++;
          }
        } else {
          Duration delay = settings.retryPolicy().delayAfter(attempts, settings.random().nextDouble());
          Duration requested = retryable.retryAfter();
          if (requested != null && requested.compareTo(delay) > 0) {
            delay = requested;
          }
          Instant next = now.plus(delay);
          String error = truncate(retryable.reason());
          if (store.markFailed(claim, error, next)) {
            failed++;
            notifyListeners(l -> l.onFailed(claim.entry(), error, next));
          } else {
            lost++;
            notifyListeners(l -> l.onClaimLost(claim.entry()));
          }
        }
      }
    }
    int delivered = 0;
    if (!confirmed.isEmpty()) {
      List<Claim> lostClaims = store.markDelivered(confirmed, settings.clock().instant());
      delivered = confirmed.size() - lostClaims.size();
      lost += lostClaims.size();
      java.util.Set<java.util.UUID> lostIds = new java.util.HashSet<>();
      for (Claim claim : lostClaims) {
        lostIds.add(claim.id());
        notifyListeners(l -> l.onClaimLost(claim.entry()));
      }
      for (Delivery delivery : confirmedDeliveries) {
        if (!lostIds.contains(delivery.claim.id())) {
          Duration took = Duration.ofNanos(Math.max(0, delivery.answeredAt - delivery.sentAt));
          notifyListeners(l -> l.onDelivered(delivery.claim.entry(), took));
        }
      }
    }
    return new RelayResult(0, delivered, failed, quarantined, lost);
  }

  private boolean quarantine(Claim claim, dev.outbox4j.QuarantineReason reason) {
    if (store.quarantine(claim, reason)) {
      notifyListeners(l -> l.onQuarantined(claim.entry(), reason.text()));
      return true;
    }
    notifyListeners(l -> l.onClaimLost(claim.entry()));
    return false;
  }

  private DeliveryOutcome outcomeOf(Delivery delivery) {
    try {
      return delivery.outcome.join();
    } catch (CompletionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof TimeoutException) {
        return DeliveryOutcome.retryable("no confirmation within " + settings.deliveryTimeout());
      }
      return DeliveryOutcome.retryable(describe(cause));
    } catch (java.util.concurrent.CancellationException e) {
      return DeliveryOutcome.retryable("delivery cancelled");
    }
  }

  private void notifyListeners(java.util.function.Consumer<RelayListener> event) {
    for (RelayListener listener : settings.listeners()) {
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "relay listener " + listener.getClass().getName() + " failed", e);
      }
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable current = error;
    while ((current instanceof CompletionException || current instanceof java.util.concurrent.ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  private static String describe(Throwable error) {
    String message = error.getMessage();
    return message == null ? error.getClass().getName() : error.getClass().getName() + ": " + message;
  }

  private static String truncate(String text) {
    return text.length() <= MAX_ERROR_LENGTH ? text : text.substring(0, MAX_ERROR_LENGTH);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
