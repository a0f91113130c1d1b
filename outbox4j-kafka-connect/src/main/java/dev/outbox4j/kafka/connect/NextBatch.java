package dev.outbox4j.kafka.connect;

import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
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
 *   <li><b>Nothing held for nobody.</b> A task that stops hands the batch back ({@link #close}); a task that dies
 *       leaves a claim nothing was sent for, which its lease hands on.
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
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final ExecutorService thread;
  private @Nullable Future<Claimed> pending;

  /**
   * @param slot the task's slot, in the claiming thread's name; the thread starts with the first claim ahead
   */
  NextBatch(int slot) {
    String name = THREAD_NAME + slot + "-" + INSTANCES.incrementAndGet();
    this.thread = Executors.newSingleThreadExecutor(work -> {
      Thread claiming = new Thread(work, name);
      claiming.setDaemon(true);
      return claiming;
    });
  }

  /** Starts claiming the next batch on the claiming thread and returns at once; nothing while a claim is pending. */
  synchronized void claimMeanwhile(Supplier<Claimed> claim) {
    if (pending == null && !thread.isShutdown()) {
      pending = thread.submit(claim::get);
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
    Future<Claimed> claim;
    synchronized (this) {
      claim = pending;
      pending = null;
    }
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

  /**
   * Hands a batch claimed ahead back to the store (it was never sent) and ends the claiming thread.
   *
   * @param store the task's store, still open
   * @param wait the longest to wait for a claim still running
   */
  void close(OutboxStore store, Duration wait) {
    Future<Claimed> claim;
    synchronized (this) {
      claim = pending;
      pending = null;
      thread.shutdown();
    }
    if (claim == null) {
      return;
    }
    try {
      List<Claim> claims = claim.get(wait.toMillis(), TimeUnit.MILLISECONDS).claims();
      if (!claims.isEmpty()) {
        store.release(claims);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      LOGGER.log(System.Logger.Level.WARNING, "a batch claimed ahead was not handed back; its entries are claimable"
          + " again when their lease ends: {0}", e.toString());
    }
  }
}
