package dev.outbox4j.chaos;

import dev.outbox4j.spi.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The relay process's transport, wrapped so that the suite can freeze the process at the one moment a freeze matters:
 * right after the broker confirmed a delivery (or committed an atomic batch) and before the relay recorded it. When
 * the flag file exists, the first confirmation after that deletes it and stops its own process with {@code kill -STOP}
 * (every thread stops; the orchestrator resumes it with SIGCONT). A freeze at a random instant usually finds a relay
 * that keeps up idle between passes, holding nothing, and proves nothing. Thread-safe.
 */
final class SelfFreezingTransport extends AfterConfirmationTransport {
  private final Path flag;

  SelfFreezingTransport(Transport delegate, Path flag) {
    super(delegate);
    this.flag = flag;
  }

  @Override
  void confirmed(String what, boolean atomicBatch) {
    if (claimFlag()) {
      System.out.println("FREEZING_SELF after " + what);
      System.out.flush();
      ChildProcesses.signal("STOP", ProcessHandle.current().pid());
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
