package dev.outbox4j.kafka;

import dev.outbox4j.OutboxException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the look-ups of entries in doubt ({@link ProgressLog#deliveredEarlier}), each on a thread and with a consumer of
 * its own.
 *
 * <h2>Why each look-up is on its own</h2>
 * A look-up cannot answer before every transaction open when it started has ended, up to T + sweep behind a frozen
 * relay's transaction. On one shared reader, a look-up that the relay already gave up on still held the reader that
 * long, and every later question queued behind it, so entries in doubt stayed claimed lease after lease. Here no
 * look-up waits for another: each runs at once, answers as soon as it has found every id asked about, and stops, its
 * consumer closed, the moment its stage is cancelled (the relay cancels it when it stops waiting, a quarter of the
 * lease). At most {@value #MAX_LOOKUPS} run at once; one more fails at once (the relay then asks again at the next
 * lease), so a stream of questions cannot pile up threads.
 *
 * <p>Thread-safe.
 */
final class ProgressLookups implements AutoCloseable {
  /** The most look-ups running at once. */
  static final int MAX_LOOKUPS = 8;

  private final ProgressLog progress;
  private final ThreadPoolExecutor readers;
  private final AtomicInteger underway = new AtomicInteger();

  ProgressLookups(ProgressLog progress) {
    this.progress = progress;
    AtomicInteger threads = new AtomicInteger();
    this.readers = new ThreadPoolExecutor(0, MAX_LOOKUPS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
        runnable -> {
          Thread thread = new Thread(runnable, "outbox4j-kafka-progress-" + threads.getAndIncrement());
          thread.setDaemon(true);
          return thread;
        });
  }

  /**
   * @param ids the messages asked about; not empty
   * @param since the earliest claim under which one of them may have been sent
   * @return the answer; cancelling it stops the look-up and frees its consumer at once
   */
  CompletableFuture<Set<UUID>> lookUp(List<UUID> ids, Instant since) {
    CompletableFuture<Set<UUID>> answer = new CompletableFuture<>();
    LookupCancellation cancel = new LookupCancellation();
    answer.whenComplete((found, failure) -> cancel.cancel()); // a cancelled answer stops the reading
    try {
      readers.execute(() -> {
        underway.incrementAndGet();
        try {
          answer.complete(progress.deliveredEarlier(ids, since, cancel));
        } catch (RuntimeException | Error e) {
          answer.completeExceptionally(e);
        } finally {
          underway.decrementAndGet();
        }
      });
    } catch (RejectedExecutionException e) {
      answer.completeExceptionally(new OutboxException(readers.isShutdown() ? "the Kafka transport is closed"
          : MAX_LOOKUPS + " look-ups of the progress topic are already under way; asked again at the next claim", e));
    }
    return answer;
  }

  /**
   * Runs {@link ProgressLog#ensureTopic} in the background once, so that brokers whose transaction settings keep
   * every transaction from starting, and a misconfigured topic, are reported at start
   * (its refusal logged; warnings are logged by the check) rather than at the first batch. A cluster that cannot be
   * reached now is not reported here: the first batch reports it.
   *
   * @param log where a refusal goes
   */
  void checkTopicSoon(System.Logger log) {
    LookupCancellation cancel = new LookupCancellation();
    try {
      readers.execute(() -> {
        try {
          progress.ensureTopic(cancel);
        } catch (ProgressLog.ClusterSettingsException e) {
          log.log(System.Logger.Level.ERROR, "the Kafka transport cannot run transactions on this cluster (every batch"
              + " fails until it is fixed): " + e.getMessage());
        } catch (ProgressLog.ProgressTopicException e) {
          log.log(System.Logger.Level.ERROR, "the Kafka transport refuses its progress topic (every batch fails until"
              + " it is fixed): " + e.getMessage());
        } catch (RuntimeException e) {
          // not reachable now, or closed: the first batch reports it
        }
      });
    } catch (RejectedExecutionException e) {
      // closed, or every reader busy: the first batch checks the topic
    }
  }

  /** @return how many look-ups are running now (holding a thread); for tests and diagnostics */
  int underway() {
    return underway.get();
  }

  /** Stops every look-up under way (their answers fail) and takes no more. */
  @Override
  public void close() {
    readers.shutdownNow();
  }
}
