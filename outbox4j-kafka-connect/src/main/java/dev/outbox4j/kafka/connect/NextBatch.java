package dev.outbox4j.kafka.connect;

import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A task's next batch, claimed on a thread of its own while Connect sends and commits the records of the last poll
 * and the task retires them ({@link #claimMeanwhile}); the next poll takes it ({@link #take}) once the last batch is
 * settled, instead of claiming then.
 *
 * <p>Why it keeps every rule of the task:
 * <ul>
 *   <li><b>Order.</b> The last poll's entries are not retired yet, so each is still its key's oldest undelivered entry,
 *       under an unexpired claim: the store hands out nothing behind them, exactly as to another task claiming at the
 *       same moment.
 *   <li><b>Offsets.</b> The batch is handed to Connect only by the next poll, after the last batch is settled, so the
 *       slot's committed offset still lists every entry that may be in Kafka and not retired.
 *   <li><b>Send window.</b> It counts from this claim's start ({@link Claimed#at}): a batch that waited too long is
 *       handed back unsent by the poll's own checks.
 *   <li><b>Nothing held for nobody.</b> A batch no poll takes within {@link #HOLD} of its claim (the connector was
 *       paused, or Connect is slow to commit) is handed back, so a paused connector holds no claim for long; a task
 *       that stops hands the batch back ({@link #close}); a task that dies leaves a claim nothing was sent for, which
 *       its lease hands on.
 * </ul>
 *
 * <p>Thread-safe: the task thread claims and takes, Connect's thread stops the task.
 */
final class NextBatch {
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka.connect");

  /**
   * A claimed batch.
   *
   * @param claims the claims, in {@code seq} order
   * @param at when the claim was made: the batch's send window counts from it
   */
  record Claimed(List<Claim> claims, Instant at) {}

  /** The prefix of the claiming threads' names. */
  static final String THREAD_NAME = "outbox4j-connect-claim-ahead-";
  /** How long a batch claimed ahead waits for a poll to take it, from its claim's start, before it is handed back. */
  static final Duration HOLD = Duration.ofSeconds(10);
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final ScheduledExecutorService thread;
  private final Duration hold;
  private final Consumer<List<Claim>> handBack;
  private @Nullable Future<Claimed> pending;
  private @Nullable Future<?> expiry;

  /**
   * @param slot the task's slot, in the claiming thread's name; the thread starts with the first claim ahead
   * @param hold how long a batch claimed ahead waits for a poll ({@link #HOLD})
   * @param handBack hands back claims nothing was sent for ({@link OutboxStore#release}), on the claiming thread
   */
  NextBatch(int slot, Duration hold, Consumer<List<Claim>> handBack) {
    String name = THREAD_NAME + slot + "-" + INSTANCES.incrementAndGet();
    this.hold = hold;
    this.handBack = handBack;
    ScheduledThreadPoolExecutor claiming = new ScheduledThreadPoolExecutor(1, work -> {
      Thread daemon = new Thread(work, name);
      daemon.setDaemon(true);
      return daemon;
    });
    claiming.setRemoveOnCancelPolicy(true); // a batch taken leaves no expiry waiting in the queue
    claiming.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.thread = claiming;
  }

  /** Starts claiming the next batch on the claiming thread and returns at once; nothing while a claim is pending. */
  synchronized void claimMeanwhile(Supplier<Claimed> claim) {
    if (pending == null && !thread.isShutdown()) {
      Future<Claimed> claiming = thread.submit(claim::get);
      pending = claiming;
      // runs on the same thread, so never before the claim has returned
      expiry = thread.schedule(() -> expire(claiming), hold.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Hands the batch back when no poll took it in time: nobody would send it. */
  private void expire(Future<Claimed> claim) {
    synchronized (this) {
      if (pending != claim) {
        return; // taken, or handed back by close
      }
      pending = null;
      expiry = null;
    }
    try {
      List<Claim> claims = claim.get().claims();
      if (!claims.isEmpty()) {
        handBack.accept(claims);
        LOGGER.log(System.Logger.Level.DEBUG, "{0} entries claimed ahead and not taken within {1} handed back",
            claims.size(), hold);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | RuntimeException e) {
      LOGGER.log(System.Logger.Level.DEBUG, "a batch claimed ahead and not taken was not handed back; its entries"
          + " are claimable again when their lease ends", e);
    }
  }

  /**
   * Waits for the batch claimed ahead, which is bounded by the store's query timeout.
   *
   * @return the batch, now the caller's; or {@code null} when none was claimed ahead, or its claim failed (the caller
   *     claims for itself, and meets the failure if it lasts)
   * @throws InterruptedException when interrupted; the batch stays here, for {@link #close} to hand back
   */
  @Nullable Claimed take() throws InterruptedException {
    Future<Claimed> claim = takePending();
    if (claim == null) {
      return null;
    }
    try {
      return claim.get();
    } catch (InterruptedException e) {
      synchronized (this) {
        if (pending == null) {
          pending = claim;
        }
      }
      throw e;
    } catch (ExecutionException e) {
      LOGGER.log(System.Logger.Level.DEBUG, "claim ahead failed; the poll claims for itself", e.getCause());
      return null;
    }
  }

  /** @return the claim ahead, now the caller's, its expiry cancelled; or {@code null} */
  private synchronized @Nullable Future<Claimed> takePending() {
    Future<Claimed> claim = pending;
    pending = null;
    if (expiry != null) {
      expiry.cancel(false);
      expiry = null;
    }
    return claim;
  }

  /**
   * Hands a batch claimed ahead back (it was never sent) and ends the claiming thread.
   *
   * @param wait the longest to wait for a claim still running
   */
  void close(Duration wait) {
    Future<Claimed> claim;
    synchronized (this) {
      claim = takePending();
      thread.shutdown();
    }
    if (claim == null) {
      return;
    }
    try {
      List<Claim> claims = claim.get(wait.toMillis(), TimeUnit.MILLISECONDS).claims();
      if (!claims.isEmpty()) {
        handBack.accept(claims);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOGGER.log(System.Logger.Level.WARNING, "a batch claimed ahead was not handed back; its entries are claimable"
          + " again when their lease ends: {0}", e.toString());
    }
  }
}
