package dev.outbox4j.internal;

import dev.outbox4j.BatchReport;
import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayResult;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OperatorPause;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The relay engine: its lifecycle and one pass. Not API.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Ordering lives in the store, not here.</b> A claim returns at most one entry per ordering key, and only the
 *       key's oldest undelivered entry. So every entry of a batch may be sent at once: no two of them can be ordered
 *       relative to each other. The relay needs no per-key queues, and several relays (or several threads calling
 *       {@link #flush()}) stay correct without talking to each other. The one exception is a destination whose
 *       transport delivers a batch atomically and in order: there a claim may return a key's run, which goes in one
 *       atomic batch in key order ({@link ClaimStep}, {@link AnswerCollector}).
 *   <li><b>A few small collaborators.</b> A pass is claim ({@link ClaimStep}: runs, entries in doubt) →
 *       {@link AnswerCollector} (send, wait for answers in waves)
 *       → {@link OutcomeRecorder} (write outcomes, confirmations first) → {@link DestinationGates} (which destinations are
 *       down?). Before sending, the gates sort the claims: a paused destination's entries are held back (a few of
 *       them sent as its probe; none for a destination an operator paused, read through {@link OperatorPauses}), so one
 *       failing destination never takes another's place or time.
 *       While a full batch is sent, answered and recorded, {@link ClaimAhead} claims the next one on a thread of its
 *       own; where the store combines a completion with a claim, a full batch answered at once has the next one
 *       claimed with its last confirmations instead, in one transaction ({@link OutcomeRecorder.ClaimWithConfirmations}). The background worker is a
 *       {@link PassLoop}. This class only owns the lifecycle they share.
 *   <li><b>Only a confirmation retires an entry.</b> A delivery still unanswered when shutdown gives up is left
 *       claimed, untouched, and its lease hands it to the next relay. Marking it delivered would turn an unconfirmed
 *       publish into a lost message.
 *   <li><b>Time is injected.</b> The clock decides claims, leases, retry schedules and log intervals; the sleeper the
 *       outage pause. Only the waits for a broker's answer and the idle poll use real time.
 *   <li><b>Lifecycle states are truthful.</b> {@link #isRunning()} is {@code true} exactly while a background worker
 *       may still run; a worker that dies of an {@link Error} stops the relay and says so to the listeners. Closing a
 *       relay that never started, or closing twice, returns at once; closing from a listener on a worker thread does
 *       not wait for that worker (it would wait for itself).
 * </ul>
 */
public final class DefaultRelay implements Relay {

  enum State { NEW, RUNNING, STOPPING, CLOSED }

  final RelaySettings settings;
  final RelayEvents events;
  final DestinationGates gates;
  final OperatorPauses operatorPauses;
  final ClaimStep claimStep;
  private final AnswerCollector answers;
  private final OutcomeRecorder recorder;

  final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  /** Completed when shutdown stops waiting for unconfirmed deliveries. */
  private final CompletableFuture<Void> shutdownGaveUp = new CompletableFuture<>();
  /** Released by {@link #close()}: cuts short the batch linger. */
  final CountDownLatch stopping = new CountDownLatch(1);
  final Semaphore wakeSignal = new Semaphore(0);
  /** Completed when every background worker has stopped. */
  private final CompletableFuture<Void> workersDone = new CompletableFuture<>();
  private final AtomicInteger workersRunning = new AtomicInteger();
  /** The background workers' threads, so that close() knows when it is called from one of them. */
  private final Set<Thread> workerThreads = ConcurrentHashMap.newKeySet();
  /** Workers inside an outage pause, which close() interrupts. */
  private final Set<Thread> pausing = ConcurrentHashMap.newKeySet();
  /** The last purge, shared by the workers so that one purges per interval. */
  final AtomicReference<@Nullable Instant> lastPurge = new AtomicReference<>();
  /** Failing background passes (the store down), logged as a streak. */
  final RelayLog.Streak passFailures;
  /** Takeovers, entries settled after a doubt, batches that did not commit: counted at INFO. */
  private final RelayLog.Tally tally;

  /** @param settings the configuration, already validated by the builder */
  public DefaultRelay(RelaySettings settings) {
    this.settings = settings;
    this.events = new RelayEvents(settings.listeners());
    this.gates = new DestinationGates(settings, events);
    this.operatorPauses = new OperatorPauses(settings.store(), settings.clock());
    Lanes lanes = new Lanes(settings.transport());
    this.tally = new RelayLog.Tally(settings.clock());
    this.claimStep = new ClaimStep(settings, events, lanes, () -> gates.paused(operatorPauses.known()), tally);
    this.answers = new AnswerCollector(settings, lanes, shutdownGaveUp, tally);
    this.recorder = new OutcomeRecorder(settings, events, gates);
    this.passFailures = new RelayLog.Streak("relay pass", settings.clock());
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
    ClaimAhead ahead = new ClaimAhead(settings, claimStep);
    try {
      for (int i = 0; i < maxPasses; i++) {
        RelayResult result = pass(ahead, i + 1 < maxPasses, i + 1 < maxPasses);
        total = total.plus(result);
        boolean probeAhead = (result.claimed() == 0 || onlyPausedDestinations(result)) && probeInTheFuture();
        if (result.claimed() == 0 && !probeAhead) {
          break; // nothing claimable, and no paused destination to probe later
        }
        if (probeAhead && i + 1 < maxPasses && !awaitProbe()) {
          break; // interrupted while waiting for the next probe
        }
      }
    } finally {
      ahead.close();
    }
    return total;
  }

  @Override
  public void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException("relay already " + state.get().name().toLowerCase(Locale.ROOT));
    }
    workersRunning.set(settings.workers());
    for (int i = 0; i < settings.workers(); i++) {
      settings.threadFactory().newThread(new PassLoop(this)).start();
    }
  }

  @Override
  public List<DestinationStatus> pausedDestinations() {
    return gates.paused(operatorPauses.known());
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
      tally.flush(); // a relay driven by flush() and drain() only
    }
    if (previous == State.NEW || previous == State.CLOSED) {
      return;
    }
    signalStop();
    if (workerThreads.contains(Thread.currentThread())) {
      return; // called from a listener on a worker: it stops after this pass; waiting here would wait for itself
    }
    try {
      awaitWorkers(settings.shutdownGrace());
      if (!workersDone.isDone()) {
        shutdownGaveUp.complete(null);
        awaitWorkers(Duration.ofSeconds(5));
      }
    } catch (InterruptedException e) {
      shutdownGaveUp.complete(null);
      Thread.currentThread().interrupt();
    }
    tally.flush();
    state.set(State.CLOSED);
  }

  private void signalStop() {
    stopping.countDown();
    wakeSignal.release(settings.workers());
    for (Thread thread : pausing) {
      thread.interrupt();
    }
  }

  private void awaitWorkers(Duration timeout) throws InterruptedException {
    try {
      workersDone.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // still running: the caller decides what follows
    }
  }

  // ------------------------------------------------------------------------------------------------ worker lifecycle

  void workerStarted() {
    workerThreads.add(Thread.currentThread());
  }

  /** A worker died of an error: the relay stops, truthfully. */
  void workerFailed() {
    state.compareAndSet(State.RUNNING, State.STOPPING);
    signalStop();
  }

  void workerEnded() {
    workerThreads.remove(Thread.currentThread());
    if (workersRunning.decrementAndGet() == 0) {
      state.set(State.CLOSED);
      workersDone.complete(null);
    }
  }

  /**
   * @return {@code true} when a pass found nothing to do but wait for paused destinations: it claimed less than a batch
   *     (nothing else is claimable), and every claim was held back (an outage or an operator's pause) or failed in an
   *     outage
   */
  boolean onlyPausedDestinations(RelayResult result) {
    return result.claimed() < settings.batchSize() && result.postponed() == result.claimed()
        && (gates.anyPaused() || !operatorPauses.known().isEmpty());
  }

  private boolean probeInTheFuture() {
    Instant now = settings.clock().instant();
    return gates.earliestProbe().filter(probe -> probe.isAfter(now)).isPresent();
  }

  /**
   * Waits until the earliest next probe of a paused destination, through the sleeper, interruptibly by
   * {@link #close()}.
   *
   * @return {@code false} when the wait was interrupted (the interrupt flag is set again)
   */
  boolean awaitProbe() {
    Duration wait = gates.earliestProbe().map(probe -> Duration.between(settings.clock().instant(), probe))
        .filter(d -> d.compareTo(Duration.ZERO) > 0).orElse(Duration.ZERO);
    if (wait.isZero()) {
      return true;
    }
    pausing.add(Thread.currentThread());
    try {
      if (workerThreads.contains(Thread.currentThread()) && state.get() != State.RUNNING) {
        return false;
      }
      settings.sleeper().sleep(wait);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      pausing.remove(Thread.currentThread());
    }
  }

  // ------------------------------------------------------------------------------------------------ one pass

  RelayResult pass() {
    return pass(null, false, false);
  }

  /**
   * One pass: claim (or take the batch claimed ahead), send, wait for the answers, record them.
   *
   * @param ahead the batch claimed ahead by the previous pass, if any, and where this pass claims the next; {@code null}
   *     for a flush
   * @param claimAhead whether this pass may claim the next batch while it sends and records its own (when its own batch
   *     is full): not on the last pass a drain may run, nor once the relay is stopping
   * @param claimWithConfirmations whether this pass may claim the next batch together with its last confirmations, in
   *     one step of the store (when its own batch is full and nothing was claimed ahead): as {@code claimAhead}, but
   *     with any number of workers
   */
  RelayResult pass(@Nullable ClaimAhead ahead, boolean claimAhead, boolean claimWithConfirmations) {
    Map<String, OperatorPause> operatorPaused = operatorPauses.current(); // read even when idle: pausedDestinations()
    long started = System.nanoTime();
    ClaimAhead.Batch taken = ahead == null ? null : ahead.take();
    List<Claim> claims;
    Duration claimTime;
    if (taken != null) {
      claims = taken.claims();
      started = taken.started(); // the sends are timed from the claim, as its leases are
      claimTime = taken.claimTime();
    } else {
      claims = claimStep.claim(settings.batchSize(), settings.clock().instant());
      claimTime = Duration.ofNanos(System.nanoTime() - started);
    }
    if (claims.isEmpty()) {
      return RelayResult.EMPTY;
    }
    RelayResult result = new RelayResult(claims.size(), 0, 0, 0, 0, 0, 0);
    ClaimStep.Settled settled = claimStep.settle(claims);
    result = result.plus(settled.result());
    claims = settled.claims();
    DestinationGates.Sorted sorted = gates.sort(claims, settings.clock().instant(), operatorPaused);
    long recording = 0;
    long recordStart = System.nanoTime();
    for (DestinationGates.HeldBack held : sorted.heldBack().values()) {
      result = result.plus(recorder.holdBack(held));
    }
    long heldBackTime = System.nanoTime() - recordStart;
    long sending = System.nanoTime();
    AnswerCollector.Round round = answers.send(sorted.send(), started);
    if (ahead != null && claimAhead && claims.size() >= settings.batchSize()
        && (round.awaitsAnswers() || !settings.store().combinesDeliveredAndClaim())) {
      // While the transport works on this batch and its outcomes are recorded: overlaps the answers' wait and the
      // completion's commit. A store that combines a completion with the next claim does that instead, when the
      // transport answered every send at once (one commit per batch, as its user chose).
      ahead.claimMeanwhile(settings.batchSize());
    }
    result = result.plus(new RelayResult(0, round.attempted(), 0, 0, 0, 0, 0));
    OutcomeRecorder.PassOutcomes outcomes = new OutcomeRecorder.PassOutcomes();
    boolean busy = ahead != null && claimWithConfirmations && settings.store().combinesDeliveredAndClaim()
        && claims.size() >= settings.batchSize();
    while (!round.isOver()) {
      List<Delivery> answered = answers.nextWave(round);
      recordStart = System.nanoTime();
      // The last wave's confirmations go with the next batch's claim: one transaction (one commit) where the store
      // can, instead of the completion's and the next pass's own. Never an earlier wave's: the claim would wait for
      // nothing, and the confirmations are not held back for it either.
      OutcomeRecorder.ClaimWithConfirmations next = busy && round.isOver() && !ahead.holdsBatch()
          && state.get() != State.STOPPING && state.get() != State.CLOSED
          ? new OutcomeRecorder.ClaimWithConfirmations(claimStep, ahead, settings.batchSize()) : null;
      result = result.plus(recorder.recordWave(answered, outcomes, next));
      recording += System.nanoTime() - recordStart;
    }
    recordStart = System.nanoTime();
    result = result.plus(recorder.recordRetryable(outcomes));
    long finished = System.nanoTime();
    recording += finished - recordStart;
    if (ahead != null && onlyPausedDestinations(result)) {
      ahead.release(); // nothing flows: the next batch is not sent into the outage
    }
    BatchReport report = new BatchReport(result, claimTime,
        Duration.ofNanos(finished - sending - recording),
        Duration.ofNanos(heldBackTime + recording));
    events.emit(l -> l.onBatch(report));
    return result;
  }
}
