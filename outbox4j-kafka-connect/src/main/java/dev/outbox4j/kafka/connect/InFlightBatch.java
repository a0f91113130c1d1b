package dev.outbox4j.kafka.connect;

import dev.outbox4j.spi.Claim;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The claims of the records a task's last poll returned, and which of them Connect reported committed
 * ({@code commitRecord}). A task claims again only when the batch is answered and settled, which keeps its committed
 * source offset a complete list of its unsettled entries (see {@link SourceOffsets}).
 *
 * <p>Thread-safe: {@code commitRecord} may run on the producer's thread while the task thread polls.
 */
final class InFlightBatch {
  private final Map<UUID, Claim> awaiting = new HashMap<>();
  private final List<Claim> answered = new ArrayList<>();

  /** @param claims the claims of the records just returned by a poll */
  synchronized void sent(List<Claim> claims) {
    for (Claim claim : claims) {
      awaiting.put(claim.id(), claim);
    }
  }

  /**
   * @param id the entry whose record Connect reported committed
   * @return {@code false} when no record of that entry is awaited (a stale report)
   */
  synchronized boolean committed(UUID id) {
    Claim claim = awaiting.remove(id);
    if (claim == null) {
      return false;
    }
    answered.add(claim);
    notifyAll();
    return true;
  }

  /** @return the claims reported committed since the last call; the caller retires them */
  synchronized List<Claim> takeAnswered() {
    List<Claim> taken = List.copyOf(answered);
    answered.clear();
    return taken;
  }

  /** @param claims claims taken by {@link #takeAnswered} that could not be retired yet; kept for the next try */
  synchronized void putBack(List<Claim> claims) {
    answered.addAll(0, claims);
  }

  /** @return {@code true} when every record of the batch was reported and every report was retired */
  synchronized boolean settled() {
    return awaiting.isEmpty() && answered.isEmpty();
  }

  /**
   * Waits for reports while some are missing (with exactly once off, they come on the producer's thread).
   *
   * @param millis the most to wait
   * @throws InterruptedException when interrupted
   */
  synchronized void awaitAnswers(long millis) throws InterruptedException {
    if (!awaiting.isEmpty() && answered.isEmpty()) {
      wait(millis);
    }
  }

  /** @return how many records are awaited */
  synchronized int awaitingCount() {
    return awaiting.size();
  }
}
