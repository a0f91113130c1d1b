package dev.outbox4j.kafka.connect;

import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.jspecify.annotations.Nullable;

/**
 * The task's next claim, made on a thread of its own while Connect sends and commits the batch the last poll returned,
 * so that the claim's round trips overlap Connect's transaction instead of following it.
 *
 * <h2>Why claiming ahead keeps every guarantee</h2>
 * What the source offsets need is that the task <em>hands Connect</em> its next batch only once its last batch is
 * retired (see {@link SourceOffsets}); when the next batch was claimed does not matter, and the poll that takes a claim
 * made ahead settles the last batch first, as it does before claiming itself. A claim made ahead is an ordinary claim
 * of the store: it cannot hold an entry of a key whose earlier entry is still in the batch in flight (the store hands
 * out at most one claim per key), its lease and send window count from the moment it was made (the poll that takes it
 * checks the window as for its own claim), and its entries in doubt are looked up in the committed offsets when the
 * poll takes it, later than a claim of the poll's own would be.
 *
 * <h2>A claim nobody takes</h2>
 * A paused task stops polling without being told; the claim made ahead is handed back (released: claimable again at
 * once, nothing charged) when no poll took it within {@code hold} of its making, so a paused connector holds no claim
 * for longer than that. Closing hands back a claim made ahead, waiting for one still being made.
 *
 * <p>Thread-safe: {@link #start} and {@link #take} run on the task's thread, the claims on the executor's single
 * thread, {@link #close} on whichever thread stops the task.
 */
final class ClaimAhead {
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka.connect");
  /** How long {@link #close} waits for a claim still being made (the store's statement bound is 30 s). */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(35);

  /**
   * A claim made ahead.
   *
   * @param at the time the claim was made at: its lease and the task's send window count from here
   * @param claims the claims, possibly none
   */
  record Claimed(Instant at, List<Claim> claims) {
    Claimed {
      claims = List.copyOf(claims);
    }
  }

  private final OutboxStore store;
  private final ScheduledExecutorService executor;
  private final Duration hold;
  private @Nullable Ahead ahead; // guarded by this
  private boolean closed; // guarded by this

  /**
   * @param store the store the claims come from, and go back to when nobody takes them
   * @param executor a single thread: the claims run on it, and the hand-back of one nobody took; {@link #close} shuts it
   *     down, so it should drop delayed tasks on shutdown
   * @param hold how long a claim made ahead waits for a poll before it is handed back
   */
  ClaimAhead(OutboxStore store, ScheduledExecutorService executor, Duration hold) {
    this.store = store;
    this.executor = executor;
    this.hold = hold;
  }

  /**
   * Starts making the next claim, unless one is being made or waits already.
   *
   * @param claim makes the claim, on the executor's thread
   */
  synchronized void start(Supplier<Claimed> claim) {
    if (ahead != null || closed) {
      return;
    }
    Ahead next = new Ahead(claim);
    next.future = executor.submit(next);
    ahead = next;
  }

  /**
   * Takes the claim made ahead, waiting while it is being made.
   *
   * @return the claim, or {@code null} when none was started or it was handed back for waiting too long
   * @throws dev.outbox4j.OutboxException when the claim failed in the store
   * @throws InterruptedException when interrupted while the claim is being made (it is then handed back once made)
   */
  @Nullable Claimed take() throws InterruptedException {
    Ahead taken;
    synchronized (this) {
      taken = ahead;
      ahead = null;
    }
    if (taken == null) {
      return null;
    }
    try {
      return taken.made().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new ConnectException("claiming ahead failed", e.getCause());
    } catch (InterruptedException e) {
      executor.execute(() -> handBack(taken));
      throw e;
    }
  }

  /** Hands back a claim made ahead (waiting for one still being made) and stops the executor. */
  void close() {
    Ahead left;
    synchronized (this) {
      closed = true;
      left = ahead;
      ahead = null;
    }
    if (left != null) {
      try {
        Claimed claimed = left.made().get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        release(claimed);
      } catch (ExecutionException | TimeoutException e) {
        // Nothing was claimed, or the claim did not answer in time: its entries come back after their lease.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    executor.shutdown(); // a claim being made for a poll finishes; the pending hand-backs have nothing left to do
  }

  private void handBack(Ahead unused) {
    try {
      release(unused.made().get());
    } catch (ExecutionException e) {
      // nothing was claimed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void release(Claimed claimed) {
    if (claimed.claims().isEmpty()) {
      return;
    }
    try {
      store.release(claimed.claims());
    } catch (RuntimeException e) {
      LOGGER.log(System.Logger.Level.WARNING, "{0} entries claimed ahead could not be handed back; they come back after"
          + " their lease: {1}", claimed.claims().size(), e.getMessage());
    }
  }

  /** One claim made ahead. */
  private final class Ahead implements Callable<Claimed> {
    private final Supplier<Claimed> claim;
    private @Nullable Future<Claimed> future; // set under the outer lock before anything reads it

    Ahead(Supplier<Claimed> claim) {
      this.claim = claim;
    }

    @Override
    public Claimed call() {
      Claimed claimed = claim.get();
      if (!claimed.claims().isEmpty()) {
        try {
          executor.schedule(this::handBackUnlessTaken, hold.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
          // closing: close() hands back what nobody took
        }
      }
      return claimed;
    }

    private void handBackUnlessTaken() {
      synchronized (ClaimAhead.this) {
        if (ahead != this) {
          return; // taken by a poll, or closing hands it back
        }
        ahead = null;
      }
      LOGGER.log(System.Logger.Level.DEBUG, "a claim made ahead waited {0} for a poll; handed back", hold);
      handBack(this);
    }

    private Future<Claimed> made() {
      synchronized (ClaimAhead.this) {
        Future<Claimed> made = future;
        if (made == null) {
          throw new IllegalStateException("claim ahead not submitted");
        }
        return made;
      }
    }
  }
}
