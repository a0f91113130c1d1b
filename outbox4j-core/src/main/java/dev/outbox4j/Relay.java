package dev.outbox4j;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Transport;

/**
 * Drains an outbox: claims a batch of entries, hands each to the transport, marks confirmed ones delivered, schedules
 * failed ones for another attempt and quarantines those that cannot succeed.
 *
 * <p>Three ways to run it: {@link #flush()} runs one pass and reports what it did; {@link #drain(int)} runs passes
 * until nothing is claimable; {@link #start()} runs passes on a background thread until {@link #close()}.
 *
 * <p>Delivery is at-least-once: an entry is marked delivered only after the transport confirmed it, so a crash in
 * between delivers it again, and consumers dedupe on the message id. Entries of one ordering key go one at a time in
 * commit order (the store hands out at most one per key); entries of different keys go concurrently, up to the
 * configured number in flight. Many relays, in one process or many, may drain one store: they share the work through
 * claims alone.
 *
 * <p>Built by {@link #builder(OutboxStore, Transport)}; immutable configuration, thread-safe.
 */
public interface Relay extends AutoCloseable {

  /**
   * @param store where the entries are
   * @param transport where they go
   * @return a builder with the defaults
   */
  static RelayBuilder builder(OutboxStore store, Transport transport) {
    return new RelayBuilder(store, transport);
  }

  /**
   * Runs one pass: claims up to a batch, delivers it, records every outcome. Safe to call from several threads; each
   * call claims its own entries.
   *
   * <p>A destination judged down (an outage) is paused on its own: the pass sends only a small probe of its entries
   * when the probe is due, holds the rest back and charges no attempt to any of them, while every other destination's
   * entries are sent as usual; {@code flush()} itself never waits for a probe ({@link #drain(int)} does). Interrupting the calling thread ends this pass's wait for answers (the unanswered entries stay claimed for
   * their lease) and affects no later pass.
   *
   * @return what the pass did
   * @throws OutboxException if the store fails; outcomes already confirmed by the transport may then be delivered again
   */
  RelayResult flush();

  /**
   * Runs passes until one claims nothing or {@code maxPasses} passes ran. While a destination is paused and a pass
   * found nothing but its entries (or nothing at all), it waits for that destination's next probe through the relay's
   * {@link Sleeper} (see {@link RelayBuilder#withOutageBackoff}); an interrupt during such a pause
   * ends the drain.
   *
   * @param maxPasses the most passes; positive
   * @return the sum of the passes
   * @throws IllegalArgumentException if maxPasses is not positive
   */
  RelayResult drain(int maxPasses);

  /**
   * Starts the background worker: passes back to back while there is work, and, when idle, a poll that backs off from
   * the minimum to the maximum poll interval, cut short by {@link #wakeUp()}.
   *
   * @throws IllegalStateException if the relay was started or closed before
   */
  void start();

  /**
   * @return the destinations this relay holds back, by name: those it paused because all of their deliveries failed
   *     alike ({@link DestinationStatus.Cause#OUTAGE}), and those an operator paused through the store
   *     ({@link DestinationStatus.Cause#OPERATOR}, as last read, about once a second); empty while every destination
   *     flows. A snapshot; thread-safe.
   */
  java.util.List<DestinationStatus> pausedDestinations();

  /** Asks the background worker to run a pass now (for example after a commit). Cheap; never blocks. */
  void wakeUp();

  /**
   * @return {@code true} from {@link #start()} until its background workers have stopped: at the end of
   *     {@link #close()}, or when a worker died of an {@link Error} (reported to {@link RelayListener#onError} and
   *     logged), which stops the relay
   */
  boolean isRunning();

  /**
   * Stops gracefully: no new claims; deliveries in flight may finish within the shutdown grace period and are then
   * recorded. Deliveries still unconfirmed after the grace period are left claimed (never marked delivered); their
   * leases expire and they are delivered again. Idempotent: closing a relay that never started, or that is closed,
   * returns at once. Called from a listener on a background worker, it does not wait (the worker would wait for
   * itself): the worker stops after its current pass. Does not close the store or the transport.
   *
   * <p>No JVM shutdown hook is installed for you: to close on SIGTERM, add one
   * ({@code Runtime.getRuntime().addShutdownHook(new Thread(relay::close))}).
   */
  @Override
  void close();
}
