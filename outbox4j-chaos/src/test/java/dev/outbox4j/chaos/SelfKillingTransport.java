package dev.outbox4j.chaos;

import dev.outbox4j.spi.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CountDownLatch;

/**
 * The relay process's transport, wrapped so that the process SIGKILLs itself between a confirmation and its record:
 * while the flag file exists, each committed atomic batch ends the process with {@code kill -9} with probability
 * {@code chance}, before the outcome reaches the relay; without atomic batches, each confirmed message does with
 * {@code chance} divided by the relay's batch size ({@link RelayMain#BATCH_SIZE}), about as often per claimed batch.
 * The outbox is never told; the entries wait for their lease and are claimed again, in doubt. That is the crash an
 * exactly-once transport must survive without a second copy, and the one after which an at-least-once transport sends
 * one.
 *
 * <p>Prints {@code KILLING_SELF} first, so the orchestrator counts the death as a self-kill, not a crash. The thread
 * that runs the hook blocks until the signal lands, so nothing after it runs. Thread-safe.
 */
final class SelfKillingTransport extends AfterConfirmationTransport {
  private final Path flag;
  private final double chance;
  private final Random random;

  /**
   * @param delegate the transport
   * @param flag self-kills happen only while this file exists (the orchestrator removes it when the writers stop)
   * @param chance probability of a self-kill per confirmation, from 0 to 1
   * @param seed seeds the draws
   */
  SelfKillingTransport(Transport delegate, Path flag, double chance, long seed) {
    super(delegate);
    if (!(chance >= 0 && chance <= 1)) {
      throw new IllegalArgumentException("selfKillChance must be from 0 to 1, was " + chance);
    }
    this.flag = flag;
    this.chance = chance;
    this.random = new Random(seed);
  }

  @Override
  void confirmed(String what, boolean atomicBatch) {
    double perConfirmation = atomicBatch ? chance : chance / RelayMain.BATCH_SIZE;
    if (random.nextDouble() >= perConfirmation || !Files.exists(flag)) {
      return;
    }
    System.out.println("KILLING_SELF after " + what + ", before the relay records it");
    System.out.flush();
    ChildProcesses.signal("KILL", ProcessHandle.current().pid());
    try {
      new CountDownLatch(1).await(); // the signal is on its way; nothing of this process may run after it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      Runtime.getRuntime().halt(137);
    }
  }
}
