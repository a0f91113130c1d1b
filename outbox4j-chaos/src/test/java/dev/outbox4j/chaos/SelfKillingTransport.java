package dev.outbox4j.chaos;

import dev.outbox4j.spi.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The relay process's transport, wrapped so that the process SIGKILLs itself between a confirmation and its record.
 * The orchestrator arms a self-kill by creating a flag file; the first relay to see a commit of an atomic batch
 * (without atomic batches, a confirmed message) after that deletes the file and ends its own process with
 * {@code kill -9} before the outcome reaches the relay. The outbox is never told; the entries wait for their lease and
 * are claimed again, in doubt. That is the crash an exactly-once transport must survive without a second copy, and the
 * one after which an at-least-once transport sends one.
 *
 * <p>Why armed by the orchestrator rather than drawn at random per confirmation: a transactional relay confirms one
 * batch where a plain one confirms each message, so a fixed chance would kill at rates orders of magnitude apart; an
 * armed kill makes the count of a run (and so its length) the scenario's choice in either mode.
 *
 * <p>Prints {@code KILLING_SELF} first, so the orchestrator counts the death as a self-kill, not a crash. The thread
 * that runs the hook blocks until the signal lands, so nothing after it runs. Thread-safe: the file is claimed by one
 * deletion.
 */
final class SelfKillingTransport extends AfterConfirmationTransport {
  private final Path flag;

  /**
   * @param delegate the transport
   * @param flag a self-kill is armed while this file exists
   */
  SelfKillingTransport(Transport delegate, Path flag) {
    super(delegate);
    this.flag = flag;
  }

  @Override
  void confirmed(String what, boolean atomicBatch) {
    if (!claimFlag()) {
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

  private boolean claimFlag() {
    try {
      return Files.deleteIfExists(flag);
    } catch (IOException e) {
      return false;
    }
  }
}
