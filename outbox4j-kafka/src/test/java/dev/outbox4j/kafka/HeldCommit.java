package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.Outgoing;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A batch of a lane whose records were sent and whose commit is held until {@link #close()}: its transaction stays open
 * meanwhile (unless its coordinator aborts it). The lane's later batches commit without waiting.
 */
final class HeldCommit implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** The batch's outcome, known once the commit is released. */
  final CompletableFuture<BatchOutcome> outcome;
  private final CountDownLatch release = new CountDownLatch(1);

  /** Sends the batch and returns once its records are sent and its commit is held. */
  HeldCommit(TransactionalLane lane, List<Message> batch, Instant claimedAt) throws InterruptedException {
    CountDownLatch sent = new CountDownLatch(1);
    lane.steps(transactionalId -> {
      sent.countDown();
      try {
        release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    outcome = lane.deliverAll(batch.stream().map(m -> new Outgoing(m, null)).toList(), claimedAt)
        .toCompletableFuture();
    assertThat(sent.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the batch was sent, its commit held").isTrue();
    lane.steps(transactionalId -> {});
  }

  /** Lets the commit go on. */
  @Override
  public void close() {
    release.countDown();
  }
}
