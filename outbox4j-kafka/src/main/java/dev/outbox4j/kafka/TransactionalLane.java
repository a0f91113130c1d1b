package dev.outbox4j.kafka;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.jspecify.annotations.Nullable;

/**
 * The transactional mode of {@link KafkaTransport}: every batch is one Kafka transaction, so a {@code read_committed}
 * consumer sees each message of it exactly once, or none of them.
 *
 * <h2>A batch</h2>
 * On one producer of a small pool (each with its own {@code transactional.id}, idempotent, {@code acks=all}), on that
 * producer's own thread: begin; send the batch's records in the given order (the layout of {@link KafkaRecords});
 * send one progress record ({@link ProgressLog}) stamped with the claim time; wait for every send; commit.
 * {@link #deliverAll} returns at once.
 *
 * <h2>Why a batch can never land after its lease</h2>
 * The progress topic refuses a record stamped more than B (the start bound) before the broker's clock, and the
 * transaction cannot commit without its progress record; so a transaction that commits wrote that record by
 * {@code claimedAt + B + skew}, and therefore started by then. The coordinator aborts a transaction T after it started
 * (the producers' {@code transaction.timeout.ms}), at its next sweep. So a batch lands, if at all, by
 * {@code claimedAt + B + T + sweep + skew}, which is {@link KafkaTransport#maxAnswerTime()}; the relay refuses a lease
 * shorter than that. This holds however long the relay froze, and does not rest on fencing transactional ids: each
 * transport instance draws a random UUID for its ids, so they are never shared between processes, and id fencing only
 * protects a producer from its own earlier incarnation (after one is replaced). A batch whose claim is already older
 * than {@code B - skew} is not started: the broker, whose clock may run {@code skew} ahead, could refuse it anyway.
 *
 * <h2>Outcomes</h2>
 * Committed: {@link BatchOutcome#committed()}. A record's send failed: abort, then
 * {@link BatchOutcome#abortedBy} that message with its classified failure, or {@link BatchOutcome#aborted} when the
 * failure says the cluster is unavailable. The progress record refused for its timestamp, or the producer fenced
 * because its coordinator aborted the transaction: nothing landed, {@link BatchOutcome#notDelivered}. The commit timed
 * out or failed otherwise: {@link BatchOutcome#inDoubt}, and the producer is replaced by one with the same
 * transactional id, whose {@code initTransactions} completes or aborts the pending transaction.
 *
 * <h2>Entries in doubt</h2>
 * {@link #deliveredEarlier} runs each look-up on its own thread and consumer ({@link ProgressLookups}): a look-up
 * waiting behind an open transaction never delays another, and cancelling its stage stops it and closes its consumer.
 *
 * <p>Thread-safe. Stages complete on the lane's own threads (a sender's, or a progress reader's): dependent stages
 * must be short. Never logs or reports payloads.
 */
final class TransactionalLane implements AtomicBatches, AutoCloseable {
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka");

  /** Steps a test drives between sending and committing (to hold a transaction open). */
  interface Steps {
    /** @param transactionalId the producer about to commit */
    void beforeCommit(String transactionalId);
  }

  private final KafkaTransactions settings;
  private final KafkaRecords records;
  private final KafkaFailureClassifier classifier;
  private final ProgressLog progress;
  private final Admin admin;
  private final Clock clock;
  private final Duration closeTimeout;
  private final BlockingQueue<Slot> idle = new LinkedBlockingQueue<>();
  private final List<Slot> slots = new ArrayList<>();
  private final ExecutorService senders;
  private final ProgressLookups lookups;
  private volatile boolean refuseLateStarts = true;
  private volatile Steps steps = transactionalId -> {};

  /**
   * @param producers creates a transactional producer for a {@code transactional.id}
   */
  TransactionalLane(KafkaTransactions settings, KafkaRecords records, KafkaFailureClassifier classifier,
      ProgressLog progress, Admin admin, Function<String, Producer<byte[], byte[]>> producers, Clock clock,
      Duration closeTimeout) {
    this.settings = settings;
    this.records = records;
    this.classifier = classifier;
    this.progress = progress;
    this.admin = admin;
    this.clock = clock;
    this.closeTimeout = closeTimeout;
    String instance = UUID.randomUUID().toString();
    for (int n = 0; n < settings.producers(); n++) {
      Slot slot = new Slot(settings.idPrefix() + "-" + instance + "-" + n, producers);
      slots.add(slot);
      idle.add(slot);
    }
    AtomicInteger threads = new AtomicInteger();
    this.senders = Executors.newFixedThreadPool(settings.producers(),
        runnable -> daemon(runnable, "outbox4j-kafka-tx-" + threads.getAndIncrement()));
    this.lookups = new ProgressLookups(progress);
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  /** For tests: {@code false} lets a batch whose claim is too old start, so that the broker refuses it. */
  void refuseLateStarts(boolean refuse) {
    this.refuseLateStarts = refuse;
  }

  /** For tests: what runs between the sends and the commit. */
  void steps(Steps steps) {
    this.steps = Objects.requireNonNull(steps, "steps");
  }

  /** @return the transactional ids of the pool, for diagnostics and tests */
  List<String> transactionalIds() {
    return slots.stream().map(slot -> slot.transactionalId).toList();
  }

  @Override
  public CompletionStage<BatchOutcome> deliverAll(List<Outgoing> batch, Instant claimedAt) {
    List<Outgoing> messages = List.copyOf(batch);
    Objects.requireNonNull(claimedAt, "claimedAt");
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a batch must not be empty");
    }
    CompletableFuture<BatchOutcome> outcome = new CompletableFuture<>();
    try {
      senders.execute(() -> {
        Slot slot = idle.remove(); // one slot per thread: never empty here
        try {
          outcome.complete(transact(slot, messages, claimedAt));
        } catch (RuntimeException | Error e) {
          slot.discard();
          outcome.complete(BatchOutcome.inDoubt("unexpected failure: " + KafkaFailureClassifier.describe(e)));
        } finally {
          slot.prepareQuietly();
          idle.add(slot);
        }
      });
    } catch (RejectedExecutionException e) {
      outcome.complete(BatchOutcome.notDelivered("the Kafka transport is closed"));
    }
    return outcome;
  }

  private BatchOutcome transact(Slot slot, List<Outgoing> batch, Instant claimedAt) {
    Duration age = Duration.between(claimedAt, clock.instant());
    Duration latestStart = settings.startBound().minus(settings.clockSkew());
    if (refuseLateStarts && age.compareTo(latestStart) > 0) {
      return BatchOutcome.notDelivered("the claim is " + age + " old, past startBound - clockSkew (" + latestStart
          + "): the broker would refuse its progress record, so the batch was not started");
    }
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(batch.size());
    List<UUID> ids = new ArrayList<>(batch.size());
    for (Outgoing outgoing : batch) {
      Message message = outgoing.message();
      try {
        out.add(records.recordOf(message, outgoing.event()));
      } catch (KafkaRecords.UnroutableException e) {
        return BatchOutcome.abortedBy(message.id(), DeliveryOutcome.permanent(e.getMessage()));
      }
      ids.add(message.id());
    }
    try {
      progress.ensureTopic();
    } catch (OutboxException e) {
      // Missing rights, a misconfigured topic (the message names the setting) or no cluster: no message's fault.
      return BatchOutcome.aborted(DeliveryOutcome.unavailable(e.getMessage()));
    }
    Producer<byte[], byte[]> producer;
    try {
      producer = slot.prepare();
    } catch (RuntimeException e) {
      return aborted(e); // prepare kept or discarded the producer, see there
    }
    try {
      producer.beginTransaction();
    } catch (RuntimeException e) {
      slot.discard();
      return aborted(e);
    }
    List<Future<RecordMetadata>> sends = new ArrayList<>(out.size());
    @Nullable Future<RecordMetadata> progressSend = null;
    @Nullable RuntimeException thrown = null;
    try {
      for (ProducerRecord<byte[], byte[]> record : out) {
        sends.add(producer.send(record));
      }
      progressSend = producer.send(progress.recordOf(ids, claimedAt));
    } catch (RuntimeException e) {
      // Thrown rather than reported per record: closed, interrupted, or (most often) an earlier record of this batch
      // already failed and the transaction can only abort; the sends made so far say which.
      thrown = e;
    }
    try {
      producer.flush();
    } catch (RuntimeException e) {
      thrown = thrown == null ? e : thrown;
    }
    @Nullable Throwable progressFailure = progressSend == null ? null : failureOf(progressSend);
    int culprit = culpritOf(sends);
    if (thrown != null || progressFailure != null || culprit >= 0) {
      // Nothing was committed and nothing can be: no commit was asked for.
      slot.abortQuietly();
      if (progressFailure instanceof InvalidTimestampException) {
        return BatchOutcome.notDelivered("the broker refused the progress record: the claim of " + claimedAt
            + " is older than the start bound (" + settings.startBound() + ")");
      }
      Throwable failure = culprit >= 0 ? Objects.requireNonNull(failureOf(sends.get(culprit)))
          : progressFailure != null ? progressFailure : Objects.requireNonNull(thrown);
      if (fenced(failure) || thrown != null) {
        slot.discard();
      }
      if (fenced(failure)) {
        return BatchOutcome.notDelivered("the transaction was aborted by its coordinator: "
            + KafkaFailureClassifier.describe(failure));
      }
      DeliveryOutcome outcome = classifier.classify(failure);
      if (culprit < 0 || isUnavailable(outcome)) {
        return BatchOutcome.aborted(outcome);
      }
      return BatchOutcome.abortedBy(ids.get(culprit), outcome);
    }
    steps.beforeCommit(slot.transactionalId);
    try {
      producer.commitTransaction();
      return BatchOutcome.committed();
    } catch (RuntimeException e) {
      slot.discard();
      if (fenced(e)) {
        return BatchOutcome.notDelivered("the transaction was aborted by its coordinator before it committed: "
            + KafkaFailureClassifier.describe(e));
      }
      return BatchOutcome.inDoubt("the commit did not complete: " + KafkaFailureClassifier.describe(e));
    }
  }

  private BatchOutcome aborted(RuntimeException e) {
    DeliveryOutcome outcome = classifier.classify(e);
    return BatchOutcome.aborted(outcome);
  }

  private static boolean isUnavailable(DeliveryOutcome outcome) {
    return outcome instanceof DeliveryOutcome.Retryable retryable && retryable.transportUnavailable();
  }

  /**
   * @return the index of the first record, in batch order, that failed for its own reason (not merely because the
   *     transaction was being aborted for another), else of the first that failed; -1 when none failed
   */
  private static int culpritOf(List<Future<RecordMetadata>> sends) {
    int first = -1;
    for (int i = 0; i < sends.size(); i++) {
      Throwable failure = failureOf(sends.get(i));
      if (failure != null && !(failure instanceof TransactionAbortedException)) {
        return i;
      }
      if (failure != null && first < 0) {
        first = i;
      }
    }
    return first;
  }

  /** @return why a completed send failed, or {@code null} if it succeeded */
  private static @Nullable Throwable failureOf(Future<RecordMetadata> send) {
    try {
      send.get(0, TimeUnit.MILLISECONDS); // complete after flush
      return null;
    } catch (ExecutionException e) {
      return e.getCause() == null ? e : e.getCause();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    } catch (java.util.concurrent.TimeoutException e) {
      return e;
    }
  }

  /**
   * The coordinator ended this producer's transaction (it timed out) and moved its epoch on, so it cannot commit. Older
   * coordinators answer a late commit with a fenced or invalid epoch; with transactions version 2 (Kafka 4), which
   * takes the late request for a retry of the aborted transaction, with an invalid transaction state: the coordinator
   * refuses a commit that way only while the transaction's state is an abort (or no transaction at all), never once it
   * committed (a retried commit of a committed transaction succeeds).
   */
  private static boolean fenced(@Nullable Throwable failure) {
    for (Throwable error = failure; error != null; error = error.getCause()) {
      if (error instanceof ProducerFencedException || error instanceof InvalidProducerEpochException
          || error instanceof InvalidTxnStateException) {
        return true;
      }
      if (error.getCause() == error) {
        break;
      }
    }
    return false;
  }

  @Override
  public CompletionStage<Set<UUID>> deliveredEarlier(Collection<Message> messages, Instant since) {
    List<UUID> ids = messages.stream().map(Message::id).toList();
    Objects.requireNonNull(since, "since");
    if (ids.isEmpty()) {
      return CompletableFuture.completedFuture(Set.of());
    }
    return lookups.lookUp(ids, since);
  }

  /** Checks the progress topic in the background, so that settings it refuses are logged at start. */
  void checkProgressTopicSoon() {
    lookups.checkTopicSoon(LOGGER);
  }

  /** @return the progress topic's settings, judged ({@link ProgressLog#check}) */
  List<ProgressTopicCheck.Finding> checkProgressTopic() {
    return progress.check();
  }

  /** @return how many look-ups hold a consumer of the progress topic now; for tests */
  int openProgressReaders() {
    return progress.openReaders();
  }

  /** @return how many look-ups are running now, each on a thread of its own; for tests */
  int lookupsUnderway() {
    return lookups.underway();
  }

  /** Stops taking batches, lets the running ones finish (within the close timeout), then closes every producer. */
  @Override
  public void close() {
    senders.shutdown();
    lookups.close();
    try {
      if (!senders.awaitTermination(closeTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        senders.shutdownNow();
      }
    } catch (InterruptedException e) {
      senders.shutdownNow();
      Thread.currentThread().interrupt();
    }
    for (Slot slot : slots) {
      slot.close(closeTimeout);
    }
    admin.close(closeTimeout);
  }

  /**
   * One pooled producer and its transactional id. Used by one sender thread at a time (handed over through the idle
   * queue, which orders the accesses).
   */
  private static final class Slot {
    final String transactionalId;
    private final Function<String, Producer<byte[], byte[]>> factory;
    private @Nullable Producer<byte[], byte[]> producer;
    private volatile @Nullable Producer<byte[], byte[]> open;

    Slot(String transactionalId, Function<String, Producer<byte[], byte[]>> factory) {
      this.transactionalId = transactionalId;
      this.factory = factory;
    }

    /**
     * @return the producer, created and its transactions initialised (which ends a predecessor's transaction)
     * @throws TimeoutException if the initialisation did not finish within {@code max.block.ms}: the producer is kept,
     *     and the next call waits for the same initialisation instead of starting over (a new producer would have to
     *     find the coordinator again, and on a slow link might never get through within {@code max.block.ms})
     */
    Producer<byte[], byte[]> prepare() {
      Producer<byte[], byte[]> current = producer;
      if (current != null) {
        return current;
      }
      Producer<byte[], byte[]> initialising = open;
      if (initialising == null) {
        initialising = factory.apply(transactionalId);
        open = initialising;
      }
      try {
        initialising.initTransactions(); // resumes the one still under way, if a call timed out before
      } catch (TimeoutException e) {
        throw e;
      } catch (RuntimeException e) {
        discard();
        throw e;
      }
      producer = initialising;
      return initialising;
    }

    /** Prepares the next producer now, so that a transaction left in doubt is finished soon; failures wait. */
    void prepareQuietly() {
      try {
        prepare();
      } catch (RuntimeException e) {
        // retried by the next batch, which reports it
      }
    }

    void abortQuietly() {
      Producer<byte[], byte[]> current = producer;
      if (current == null) {
        return;
      }
      try {
        current.abortTransaction();
      } catch (RuntimeException e) {
        discard(); // the successor's initTransactions aborts it; the coordinator would anyway after T
      }
    }

    /** Closes the producer at once; the next one, same transactional id, completes or aborts what it left open. */
    void discard() {
      Producer<byte[], byte[]> current = open;
      producer = null;
      open = null;
      if (current != null) {
        try {
          current.close(Duration.ZERO);
        } catch (RuntimeException e) {
          // closing is best effort; the id's next producer fences this one
        }
      }
    }

    void close(Duration timeout) {
      Producer<byte[], byte[]> current = open;
      open = null;
      if (current != null) {
        current.close(timeout);
      }
    }
  }
}
