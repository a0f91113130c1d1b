package dev.outbox4j.internal;

import dev.outbox4j.spi.Claim;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The next batch, claimed on a thread of its own while the current one is sent, answered and recorded
 * ({@link #claimMeanwhile}), or together with its last confirmations ({@link #hold}). Not API.
 *
 * <h2>Why it exists</h2>
 * A busy pass is three waits in a row: the claim's commit, the broker's answers, the completion's commit. A relay that
 * claims only after recording the answers spends the claim's round trips and commit on top of the other two, every
 * pass. Claiming the next batch meanwhile, on a second connection, overlaps them: the broker's wait, and the
 * completion's commit, which the database can flush together with the claim's (one WAL flush for two commits). A busy
 * relay's pace is then set by the broker or the database, whichever is slower, not by their sum
 * (docs/benchmark-findings.md, "Claiming ahead").
 *
 * <h2>Why it keeps every guarantee</h2>
 * <ul>
 *   <li><b>Order.</b> The store hands out only keys' oldest undelivered entries, and an entry of the batch in flight is
 *       still its key's oldest: nothing behind it can be in the next batch. So the next batch never holds an entry that
 *       must wait for one in flight, exactly as for a second relay claiming at the same moment.
 *   <li><b>Leases.</b> The next batch's leases run from its own claim, and its sends are timed from it. A batch held
 *       too long (half its lease, or past its send cutoff: the last moment a send can start and still land inside the
 *       lease, as {@link AnswerCollector} judges it; by the relay's clock or by elapsed time, for instance behind a slow
 *       broker) is handed back at once and claimed afresh instead of being sent late, or not at all while its leases
 *       run out.
 *   <li><b>Nothing held for nobody.</b> A batch that is not sent after all (the relay stops, the transport went down,
 *       the batch grew stale) is handed back at once ({@link dev.outbox4j.spi.OutboxStore#release}): nothing was sent,
 *       so there is nothing to wait for. If even that fails, its leases hand it on.
 *   <li><b>A claim still commits before any of its sends.</b> The claim ahead runs on its own thread, but the batch
 *       is only ever read after that claim returned ({@link #take}, {@link #holdsBatch}, {@link #release} wait for
 *       it): its transaction has committed before the first of its sends starts, as for a claim on the worker's own
 *       thread. A crash while it runs leaves a claim nobody sends: its leases hand it on.
 *   <li><b>Only when it pays.</b> It claims ahead only after a full batch (a backlog is probably waiting), never in a
 *       {@code flush()}, never while the transport is down, never on the last pass a {@code drain} may run, and only
 *       for a relay's only worker (with more, one worker's claim already overlaps another's pass).
 * </ul>
 *
 * <p>Not thread-safe: each worker (and each {@code drain} call) has its own, and {@link #close}s it when done. The
 * claim ahead's thread is the only other one that touches it, and only while {@code pending} is set.
 */
final class ClaimAhead {
  /** A batch claimed ahead: its claims, when its claim began ({@link System#nanoTime()}) and how long it took. */
  record Batch(List<Claim> claims, long started, Duration claimTime) {}

  private final RelaySettings settings;
  private final ClaimStep claimStep;
  /** Set by the claim's thread while {@link #pending} runs, read by the owner only once it has ended. */
  private @Nullable Batch next;
  private @Nullable Instant claimedAt;
  /** The claim ahead running on {@link #thread}, until the owner waits for it ({@link #settle}). */
  private @Nullable Future<?> pending;
  /** Made at the first claim ahead, from the relay's thread factory; shut down by {@link #close}. */
  private @Nullable ExecutorService thread;

  ClaimAhead(RelaySettings settings, ClaimStep claimStep) {
    this.settings = settings;
    this.claimStep = claimStep;
  }

  /**
   * Starts claiming the next batch on the claim ahead's thread and returns at once; the next {@link #take} waits for
   * it. Does nothing while a batch is held or being claimed.
   */
  void claimMeanwhile(int limit) {
    if (next != null || pending != null) {
      return;
    }
    if (thread == null) {
      thread = Executors.newSingleThreadExecutor(settings.threadFactory());
    }
    pending = thread.submit(() -> claimNext(limit));
  }

  /**
   * Waits for the claim ahead, if one runs: it is bounded by the store's statement timeouts, so the wait is not
   * interruptible (an interrupt is kept for the caller), and a batch it claimed is never left unknown to the owner.
   */
  private void settle() {
    Future<?> running = pending;
    if (running == null) {
      return;
    }
    pending = null;
    boolean interrupted = false;
    try {
      while (true) {
        try {
          running.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error; // as if it had happened on the worker's own thread: the worker stops, loudly
          }
          return; // claimNext reports its own failures
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Claims the next batch, on the claim ahead's thread ({@link #claimMeanwhile}). A failure is not the pass's: the
   * batch is simply not claimed ahead, and the next pass's own claim meets (and reports) the failure if it lasts.
   */
  private void claimNext(int limit) {
    if (next != null) {
      return;
    }
    long started = System.nanoTime();
    Instant now = settings.clock().instant();
    try {
      List<Claim> claims = claimStep.claim(limit, now);
      if (!claims.isEmpty()) {
        next = new Batch(claims, started, Duration.ofNanos(System.nanoTime() - started));
        claimedAt = now;
      }
    } catch (RuntimeException e) {
      RelayLog.LOGGER.log(System.Logger.Level.DEBUG, "claim ahead failed; the next pass claims for itself", e);
    }
  }

  /** @return whether a batch claimed ahead waits here for the next pass */
  boolean holdsBatch() {
    settle();
    return next != null;
  }

  /**
   * Keeps a batch claimed together with the previous batch's confirmations ({@link ClaimStep#retireAndClaim}) for the
   * next pass, which takes it as a batch claimed ahead.
   *
   * @param started when its claim began ({@link System#nanoTime()})
   * @param claimedAt the time its claim was made at, on the relay's clock: its leases count from it
   */
  void hold(List<Claim> claims, long started, Instant claimedAt) {
    settle();
    if (claims.isEmpty()) {
      return;
    }
    if (next != null) {
      throw new IllegalStateException("a batch claimed ahead is held already");
    }
    next = new Batch(claims, started, Duration.ofNanos(System.nanoTime() - started));
    this.claimedAt = claimedAt;
  }

  /**
   * @return the batch claimed ahead, now the caller's, or {@code null}; a stale batch (half its lease gone, or its send
   *     cutoff passed) is handed back at once instead
   */
  @Nullable Batch take() {
    settle();
    Batch batch = next;
    if (batch == null) {
      return null;
    }
    long lease = settings.lease().toNanos();
    // Taken only while its sends can start and land inside the lease, and with half the lease left for the answers.
    long usable = Math.min(lease / 2, AnswerCollector.sendCutoff(settings, 0));
    boolean fresh = System.nanoTime() - batch.started() < usable
        && Duration.between(claimedAt, settings.clock().instant()).toNanos() < usable;
    if (!fresh) {
      release();
      return null;
    }
    next = null;
    claimedAt = null;
    return batch;
  }

  /** Hands the batch claimed ahead back to the store, if there is one: it was never sent. */
  void release() {
    settle();
    Batch batch = next;
    next = null;
    claimedAt = null;
    if (batch == null) {
      return;
    }
    try {
      settings.store().release(batch.claims());
    } catch (RuntimeException e) {
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, "could not hand back " + batch.claims().size()
          + " entries claimed ahead and not sent; they are claimable again when their lease ends: "
          + RelayLog.describe(e));
    }
  }

  /** Hands back a batch claimed ahead ({@link #release}) and ends the claim ahead's thread: the owner is done. */
  void close() {
    try {
      release();
    } finally {
      if (thread != null) {
        thread.shutdown();
        thread = null;
      }
    }
  }
}
