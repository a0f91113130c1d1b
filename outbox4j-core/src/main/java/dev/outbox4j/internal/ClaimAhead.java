package dev.outbox4j.internal;

import dev.outbox4j.spi.Claim;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The next batch, claimed while the current one waits for its broker's answers, or together with its last
 * confirmations ({@link #hold}). Not API.
 *
 * <h2>Why it exists</h2>
 * With a broker, most of a pass is waiting: the whole batch is sent, then the relay waits for the confirmations. A relay
 * that claims only after recording them spends the claim's round trips on top of that wait, every pass. Claiming the
 * next batch during the wait overlaps the two, so a busy relay's pace is set by the broker or the database, whichever
 * is slower, not by their sum.
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
 *   <li><b>Only when it pays.</b> It claims ahead only after a full batch (a backlog is probably waiting) that is
 *       still waiting for answers once sent (a transport that answered every send at once leaves no wait to overlap,
 *       and a claim ahead would only hold more entries), never in a {@code flush()}, never while the transport is
 *       down, never on the last pass a {@code drain} may run.
 * </ul>
 *
 * <p>Not thread-safe: each worker (and each {@code drain} call) has its own.
 */
final class ClaimAhead {
  /** A batch claimed ahead: its claims, when its claim began ({@link System#nanoTime()}) and how long it took. */
  record Batch(List<Claim> claims, long started, Duration claimTime) {}

  private final RelaySettings settings;
  private final ClaimStep claimStep;
  private @Nullable Batch next;
  private @Nullable Instant claimedAt;

  ClaimAhead(RelaySettings settings, ClaimStep claimStep) {
    this.settings = settings;
    this.claimStep = claimStep;
  }

  /**
   * Claims the next batch now. A failure is not the pass's: the batch is simply not claimed ahead, and the next
   * pass's own claim meets (and reports) the failure if it lasts.
   */
  void claimNext(int limit) {
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
}
