package dev.outbox4j.testkit;

import dev.outbox4j.Message;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.spi.Transport;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A transport for tests whose destinations in {@link #atomic} deliver batches atomically and in order, as a Kafka
 * transaction does, with scripted failures; every other destination is delivered one message at a time. It keeps what
 * landed (committed batches, and single deliveries) in order, and answers {@link AtomicBatches#deliveredEarlier} from
 * it. Thread-safe.
 */
public final class AtomicTestTransport implements Transport {
  /** What the next batch does, given its messages: land them ({@code true}) or not, and what to report. */
  public record Script(boolean lands, Function<List<Outgoing>, BatchOutcome> report) {}

  private final Set<String> atomic;
  private final Lane lane = new Lane();
  private final List<Message> landed = new ArrayList<>();
  private final List<List<Message>> batches = new ArrayList<>();
  private final Deque<Script> scripts = new ArrayDeque<>();
  private final Deque<RuntimeException> lookupFailures = new ArrayDeque<>();
  private final List<Instant> lookups = new ArrayList<>();
  private final Deque<CompletableFuture<Set<UUID>>> hangingLookups = new ArrayDeque<>();

  /** @param atomic the destinations delivered in atomic batches */
  public AtomicTestTransport(Set<String> atomic) {
    this.atomic = Set.copyOf(atomic);
  }

  /** Scripts the next batch (scripts run in the order given; without one a batch lands and reports committed). */
  public synchronized AtomicTestTransport thenBatch(boolean lands, Function<List<Outgoing>, BatchOutcome> report) {
    scripts.add(new Script(lands, report));
    return this;
  }

  /** Makes the next {@code deliveredEarlier} call fail with {@code failure}. */
  public synchronized AtomicTestTransport thenLookupFails(RuntimeException failure) {
    lookupFailures.add(failure);
    return this;
  }

  /**
   * Makes the next {@code deliveredEarlier} call answer only when the returned stage is completed (or never).
   *
   * @return the stage that call will return, so a test can see whether the relay cancelled it
   */
  public synchronized CompletableFuture<Set<UUID>> thenLookupHangs() {
    CompletableFuture<Set<UUID>> answer = new CompletableFuture<>();
    hangingLookups.add(answer);
    return answer;
  }

  /** @return every message that landed, in the order it landed */
  public synchronized List<Message> landed() {
    return List.copyOf(landed);
  }

  /** @return the atomic batches that were attempted, in order, each as it was handed over */
  public synchronized List<List<Message>> batches() {
    return List.copyOf(batches);
  }

  /** @return the {@code since} of every {@code deliveredEarlier} call */
  public synchronized List<Instant> lookups() {
    return List.copyOf(lookups);
  }

  @Override
  public synchronized CompletionStage<DeliveryOutcome> deliver(Message message) {
    landed.add(message);
    return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
  }

  @Override
  public AtomicBatches atomicBatches(String destination) {
    return atomic.contains(destination) ? lane : null;
  }

  private final class Lane implements AtomicBatches {
    @Override
    public CompletionStage<BatchOutcome> deliverAll(List<Outgoing> batch, Instant claimedAt) {
      synchronized (AtomicTestTransport.this) {
        List<Message> messages = batch.stream().map(Outgoing::message).toList();
        batches.add(messages);
        Script script = scripts.poll();
        if (script == null || script.lands()) {
          landed.addAll(messages);
        }
        return CompletableFuture.completedFuture(script == null ? BatchOutcome.committed() : script.report().apply(batch));
      }
    }

    @Override
    public CompletionStage<Set<UUID>> deliveredEarlier(Collection<Message> messages, Instant since) {
      synchronized (AtomicTestTransport.this) {
        lookups.add(since);
        CompletableFuture<Set<UUID>> hanging = hangingLookups.poll();
        if (hanging != null) {
          return hanging;
        }
        RuntimeException failure = lookupFailures.poll();
        if (failure != null) {
          return CompletableFuture.failedFuture(failure);
        }
        Set<UUID> ids = new HashSet<>();
        landed.forEach(m -> ids.add(m.id()));
        Set<UUID> found = new HashSet<>();
        messages.forEach(m -> {
          if (ids.contains(m.id())) {
            found.add(m.id());
          }
        });
        return CompletableFuture.completedFuture(found);
      }
    }
  }
}
