package dev.outbox4j.internal;

import dev.outbox4j.RelayResult;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A relay's background worker: passes back to back while there is work. Not API.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Busy: no wait.</b> After a full batch the next pass starts at once, with the batch claimed while this
 *       pass sent and recorded its own ({@link ClaimAhead}) when this is the relay's only worker; after a partial one
 *       it lingers a moment so a stream of small commits (each of which wakes the relay) is claimed in batches, not one
 *       pass per commit. A full batch whose next one was not claimed ahead has it claimed with its last confirmations,
 *       in one step of the store where the store can ({@link OutcomeRecorder.ClaimWithConfirmations}): one commit per
 *       batch.
 *   <li><b>Idle: an adaptive poll.</b> From the minimum poll doubling up to the maximum, cut short by a wake-up.
 *   <li><b>A destination down does not stop the loop.</b> Its entries are held back and probed by the passes
 *       ({@link DestinationGates}); a pass that found nothing but such entries counts as idle, so the poll (and a
 *       wake-up) still claims every other destination's new entries at once.
 *   <li><b>A failing pass (database down) is not an event per pass.</b> Listeners hear of every failure (metrics count
 *       them); the log hears of the streak: its start with the stack trace, a summary per interval, its end.
 *   <li><b>An {@link Error} ends the relay, loudly.</b> The worker's state is unknown after one (out of memory, a
 *       linkage error): it reports the error to the listeners and the log, and the relay stops, so that
 *       {@link dev.outbox4j.Relay#isRunning()} tells the truth. Carrying on silently would leave a relay that looks
 *       alive and delivers nothing.
 * </ul>
 */
final class PassLoop implements Runnable {
  private static final int PURGE_BATCH = 1000;
  private static final int PURGE_ROUNDS = 10;

  private final DefaultRelay relay;
  private final RelaySettings settings;
  private final RelayLog.Streak passFailures;
  private final AtomicReference<@Nullable Instant> lastPurge;

  PassLoop(DefaultRelay relay) {
    this.relay = relay;
    this.settings = relay.settings;
    this.passFailures = relay.passFailures;
    this.lastPurge = relay.lastPurge;
  }

  @Override
  public void run() {
    relay.workerStarted();
    Duration idle = settings.minPoll();
    // With two or more workers, one worker's claim already overlaps another's wait for answers; claiming ahead as well
    // would only let one worker hold two batches while another finds nothing to claim (measured: slower, not faster).
    boolean mayClaimAhead = settings.workers() == 1;
    ClaimAhead ahead = new ClaimAhead(settings, relay.claimStep);
    try {
      while (relay.state.get() == DefaultRelay.State.RUNNING) {
        int claimed = 0;
        boolean waitingForProbes = false;
        try {
          boolean running = relay.state.get() == DefaultRelay.State.RUNNING;
          RelayResult result = relay.pass(ahead, mayClaimAhead && running, running);
          claimed = result.claimed();
          waitingForProbes = relay.onlyPausedDestinations(result);
          passFailures.recovered();
          purgeIfDue();
          idle = claimed > 0 ? settings.minPoll() : idle;
        } catch (RuntimeException e) {
          relay.events.error(e);
          passFailures.failed(RelayLog.describe(e), e);
        }
        if (waitingForProbes) {
          claimed = 0; // nothing flowing was claimed: poll as when idle, so a new entry of another destination is
                       // claimed at the poll's pace (or at once, on a wake-up), not after the paused one's probe
        }
        if (claimed >= settings.batchSize()) {
          continue; // a full batch: more is probably waiting
        }
        if (claimed > 0) {
          if (!settings.batchLinger().isZero()) {
            relay.stopping.await(settings.batchLinger().toNanos(), TimeUnit.NANOSECONDS);
          }
          relay.wakeSignal.drainPermits();
          continue;
        }
        if (relay.wakeSignal.tryAcquire(idle.toNanos(), TimeUnit.NANOSECONDS)) {
          idle = settings.minPoll();
        } else {
          idle = idle.multipliedBy(2).compareTo(settings.maxPoll()) <= 0 ? idle.multipliedBy(2) : settings.maxPoll();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Error e) {
      RelayLog.LOGGER.log(System.Logger.Level.ERROR, "relay worker stopped by an error; the relay is stopping", e);
      relay.workerFailed();
      relay.events.error(e);
    } finally {
      ahead.close(); // a batch claimed ahead and not sent: the relay stopped, or the worker failed
      relay.workerEnded();
    }
  }

  private void purgeIfDue() {
    if (settings.store().retention().deletesOnDelivery()) {
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
      if (settings.store().purgeDelivered(now, PURGE_BATCH) < PURGE_BATCH) {
        return; // caught up: the next purge is due after the interval
      }
    }
    // Still behind (more is delivered per interval than the rounds remove): the purge stays due, so the next pass
    // purges again. Each pass removes at most the rounds' entries, so deliveries go on between them.
    lastPurge.compareAndSet(now, null);
  }
}
