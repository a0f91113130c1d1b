package dev.outbox4j.internal;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Sends a pass's claims and waits for their answers, in waves. Not API.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Send the whole batch, then wait.</b> Transports return a stage and confirm asynchronously, so a batch costs
 *       about one broker round trip, not one per message. A semaphore bounds the deliveries in flight.
 *   <li><b>Waves.</b> Answers that arrive together are recorded together (one store call for all confirmations), but
 *       one slow delivery never keeps the confirmed rest of its batch unrecorded for longer than {@link #WAVE}.
 *   <li><b>Deadlines.</b> A delivery is given up at its delivery timeout or at 90 % of the lease, whichever comes
 *       first, and then counts as a retryable failure. Its copy may still land (up to the transport's
 *       {@code maxAnswerTime} after the send began): the recorder keeps the entry unclaimable until then. A send
 *       starts only while that bound still ends inside the claim's lease, so that a relay that dies mid-send is covered
 *       by its lease: nobody claims the entry before any copy of the send has landed.
 *   <li><b>The cutoff is checked where the send starts.</b> With a dispatch executor a delivery may wait in its queue
 *       (behind a blocking transport, for instance): the thread that runs it checks the cutoff again right before
 *       {@code Transport.deliver} and stamps the send start there, so a send never starts after its cutoff, whatever
 *       executor runs it, and the late-copy bound counts from the real send start. A delivery whose cutoff or deadline
 *       came while it waited is never sent: the recorder hands it back uncharged. Each delivery moves once from queued
 *       to started or to not sent ({@link Delivery#state}), so the relay thread giving up and the executor thread
 *       starting the send never both win.
 *   <li><b>A bounded queue.</b> At most {@code maxInFlight} deliveries wait in the executor's queue (a second bound
 *       beside the in-flight permits, which a delivery given up on frees while its task may still sit in the queue):
 *       while a broker stalls a pool's threads, the queue does not grow past it.
 *   <li><b>Atomic batches go whole.</b> The claims of destinations whose transport delivers batches atomically
 *       ({@link dev.outbox4j.spi.AtomicBatches}) are sent together, in {@code seq} order (so a key's run in its order),
 *       in one call; each gets its share of the batch's outcome. A batch that is aborted or refused landed nothing: its
 *       deliveries are handed back uncharged (but for the one whose failure aborted it), with no late copy to wait for.
 *       A batch whose outcome is unknown, or not known by the deadline, may still land: nothing is recorded for it and
 *       its leases hand its entries on, in doubt, to the next claim, which asks the transport.
 *   <li><b>Giving up belongs to the pass.</b> An interrupt of the thread running a pass ends that pass's wait (its
 *       unanswered deliveries stay claimed for their lease to hand on); it never spoils later passes. Only shutdown
 *       gives up on every pass at once.
 * </ul>
 *
 * <p>Thread-safe: each {@link Round} belongs to the one thread running its pass.
 */
final class AnswerCollector {
  /** How long answers are gathered before the ones that arrived are recorded. */
  static final Duration WAVE = Duration.ofMillis(100);

  private final RelaySettings settings;
  private final Lanes lanes;
  private final Semaphore inFlight;
  /** Deliveries handed to the executor whose task has not begun to run: bounds the executor's queue. */
  private final Semaphore queued;
  /** Completed when shutdown stops waiting for unconfirmed deliveries. */
  private final CompletableFuture<Void> shutdownGaveUp;

  /** Batches that did not commit, counted at INFO. */
  private final RelayLog.Tally tally;

  AnswerCollector(RelaySettings settings, Lanes lanes, CompletableFuture<Void> shutdownGaveUp, RelayLog.Tally tally) {
    this.tally = tally;
    this.settings = settings;
    this.lanes = lanes;
    this.inFlight = new Semaphore(settings.maxInFlight());
    this.queued = new Semaphore(settings.maxInFlight());
    this.shutdownGaveUp = shutdownGaveUp;
  }

  /** The deliveries of one pass. */
  final class Round {
    private final List<Delivery> waiting;
    private final int attempted;
    private boolean gaveUp;

    private Round(List<Delivery> sent) {
      this.waiting = new ArrayList<>(sent);
      this.attempted = sent.size();
    }

    /** @return how many claims were handed to the transport */
    int attempted() {
      return attempted;
    }

    /** @return {@code true} while some delivery has not answered yet: the pass is going to wait */
    boolean awaitsAnswers() {
      for (Delivery delivery : waiting) {
        if (!delivery.outcome.isDone()) {
          return true;
        }
      }
      return false;
    }

    /** @return {@code true} when every delivery answered, or the pass or shutdown gave up waiting */
    boolean isOver() {
      return waiting.isEmpty() || gaveUp || shutdownGaveUp.isDone();
    }
  }

  /**
   * Sends the claims, in order, as in-flight permits allow.
   *
   * @param claims the pass's claims
   * @param started when the pass began, before its claim, on {@link System#nanoTime()}
   * @return the round; claims that could not be sent inside their lease are left out (their lease hands them on)
   */
  Round send(List<Claim> claims, long started) {
    long lease = settings.lease().toNanos();
    // Answers must arrive while the claims still hold: a tenth of the lease is kept as a margin for recording them.
    long leaseDeadline = started + lease - lease / 10;
    // A send may start only while any copy of it lands inside the lease, and with that margin kept.
    long lastSendStart = sendCutoff(settings, started);
    List<Delivery> deliveries = new ArrayList<>(claims.size());
    Map<AtomicBatches, List<Delivery>> batches = new LinkedHashMap<>();
    for (Claim claim : claims) {
      if (!acquire(inFlight, deliveries, lastSendStart)) {
        break; // shutting down, interrupted or too late: the rest stay claimed and unsent
      }
      if (!acquire(queued, deliveries, lastSendStart)) {
        inFlight.release();
        break;
      }
      long now = System.nanoTime();
      if (now - lastSendStart >= 0) {
        queued.release();
        inFlight.release();
        break; // too late to send inside the lease: the rest stay claimed and unsent; their leases hand them on
      }
      long own = now + settings.deliveryTimeout().toNanos();
      AtomicBatches lane = lanes.of(claim.message().destination());
      Delivery delivery = new Delivery(claim, now, own - leaseDeadline < 0 ? own : leaseDeadline, lane);
      deliveries.add(delivery);
      delivery.outcome.whenComplete((outcome, error) -> {
        delivery.answeredAt = System.nanoTime();
        delivery.answeredOn = settings.clock().instant();
        inFlight.release();
      });
      if (lane != null) {
        queued.release(); // sent with its batch, as one task, below
        batches.computeIfAbsent(lane, l -> new ArrayList<>()).add(delivery);
        continue;
      }
      try {
        settings.executor().execute(() -> {
          queued.release();
          deliver(delivery, lastSendStart);
        });
      } catch (RuntimeException rejected) {
        queued.release();
        giveUpUnsent(delivery, "dispatch rejected: " + RelayLog.describe(rejected));
      }
    }
    for (Map.Entry<AtomicBatches, List<Delivery>> batch : batches.entrySet()) {
      try {
        settings.executor().execute(() -> deliverBatch(batch.getKey(), batch.getValue(), lastSendStart));
      } catch (RuntimeException rejected) {
        batch.getValue().forEach(d -> giveUpUnsent(d, "dispatch rejected: " + RelayLog.describe(rejected)));
      }
    }
    return new Round(deliveries);
  }

  /**
   * The last moment a send of a batch may start: while any copy of it lands inside the lease, with a tenth of the lease
   * kept as a margin for recording the answers.
   *
   * @param settings the relay's settings
   * @param claimStarted when the batch's claim began, on {@link System#nanoTime()}
   * @return the cutoff, on {@link System#nanoTime()}
   */
  static long sendCutoff(RelaySettings settings, long claimStarted) {
    long lease = settings.lease().toNanos();
    return claimStarted + lease - Math.max(lease / 10, settings.maxAnswerTime().toNanos());
  }

  /**
   * Waits for the next wave of answers: until every delivery answered, a wave period passed, the earliest deadline
   * came, or shutdown gave up. Overdue deliveries get a timeout outcome.
   *
   * @return the deliveries that answered, removed from the round
   */
  List<Delivery> nextWave(Round round) {
    awaitWave(round);
    expireOverdue(round.waiting);
    List<Delivery> answered = new ArrayList<>();
    List<Delivery> stillWaiting = new ArrayList<>(round.waiting.size());
    for (Delivery delivery : round.waiting) {
      (delivery.outcome.isDone() ? answered : stillWaiting).add(delivery);
    }
    // One pass: removeAll would compare every waiting delivery with every answered one (a quarter million
    // comparisons for a batch of 500).
    round.waiting.clear();
    round.waiting.addAll(stillWaiting);
    return answered;
  }

  private void awaitWave(Round round) {
    CompletableFuture<?>[] outcomes = new CompletableFuture<?>[round.waiting.size()];
    long earliestDeadline = Long.MAX_VALUE;
    for (int i = 0; i < outcomes.length; i++) {
      Delivery delivery = round.waiting.get(i);
      outcomes[i] = delivery.outcome;
      earliestDeadline = Math.min(earliestDeadline, delivery.deadline);
    }
    long wait = Math.max(0, Math.min(WAVE.toNanos(), earliestDeadline - System.nanoTime()));
    try {
      CompletableFuture.anyOf(CompletableFuture.allOf(outcomes), shutdownGaveUp).get(wait, TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // a wave ended with deliveries still unanswered, or one failed: record what has answered
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      round.gaveUp = true; // this pass stops waiting; later passes are unaffected
    }
  }

  /**
   * Gives every delivery past its deadline a timeout outcome, or, when its send has not begun, a not-sent one; either
   * frees its in-flight permit.
   */
  private void expireOverdue(List<Delivery> deliveries) {
    long now = System.nanoTime();
    for (Delivery delivery : deliveries) {
      if (delivery.outcome.isDone() || now - delivery.deadline < 0
          || giveUpUnsent(delivery, "not sent: its deadline came while it waited for the executor")) {
        continue;
      }
      String late = "no confirmation within " + settings.deliveryTimeout() + " or inside the lease";
      if (delivery.lane == null) {
        delivery.outcome.complete(DeliveryOutcome.retryable(late));
      } else if (delivery.state.compareAndSet(Delivery.STARTED, Delivery.IN_DOUBT)) {
        // its batch may still commit: nothing is recorded, the lease hands it on, the next claim asks the transport
        delivery.outcome.complete(DeliveryOutcome.retryable(late));
      }
    }
  }

  /** @return {@code true} if the delivery had not started and now never will: it is answered as not sent */
  private static boolean giveUpUnsent(Delivery delivery, String reason) {
    if (!delivery.state.compareAndSet(Delivery.QUEUED, Delivery.NOT_SENT)) {
      return false;
    }
    delivery.outcome.complete(DeliveryOutcome.retryable(reason));
    return true;
  }

  /**
   * Waits for a permit while deliveries already dispatched may still be waited for.
   *
   * @return {@code false} on shutdown, interrupt, or once the send cutoff passed
   */
  private boolean acquire(Semaphore permits, List<Delivery> dispatched, long lastSendStart) {
    try {
      while (!permits.tryAcquire(10, TimeUnit.MILLISECONDS)) {
        if (shutdownGaveUp.isDone() || System.nanoTime() - lastSendStart >= 0) {
          return false;
        }
        expireOverdue(dispatched); // a full window of silent deliveries must not wait forever for a permit
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Runs on the executor: sends, unless the cutoff passed or the relay gave up while the delivery was queued. */
  private void deliver(Delivery delivery, long lastSendStart) {
    if (System.nanoTime() - lastSendStart >= 0) {
      giveUpUnsent(delivery, "not sent: its send cutoff passed while it waited for the executor");
      return;
    }
    delivery.sendStartedAt = settings.clock().instant();
    if (!delivery.state.compareAndSet(Delivery.QUEUED, Delivery.STARTED)) {
      return; // the relay gave up on it while it was queued: it is handed back unsent
    }
    try {
      CloudEventsMapping mapping = settings.cloudEvents().get(delivery.claim.message().destination());
      CompletionStage<DeliveryOutcome> sending = mapping == null
          ? settings.transport().deliver(delivery.claim.message())
          : settings.transport().deliver(delivery.claim.message(), CloudEvent.of(delivery.claim.entry(), mapping));
      sending.whenComplete((outcome, error) -> {
        if (error != null) {
          delivery.outcome.complete(DeliveryOutcome.retryable(RelayLog.describe(unwrap(error))));
        } else if (outcome == null) {
          delivery.outcome.complete(DeliveryOutcome.retryable("transport completed without an outcome"));
        } else {
          delivery.outcome.complete(outcome);
        }
      });
    } catch (RuntimeException | Error e) {
      delivery.outcome.complete(DeliveryOutcome.retryable(RelayLog.describe(e)));
    }
  }

  /**
   * Runs on the executor: sends an atomic batch, all of it or nothing (a delivery given up while the batch waited
   * takes the whole batch with it: a key's run must never be sent without its earlier entries).
   */
  private void deliverBatch(AtomicBatches lane, List<Delivery> batch, long lastSendStart) {
    if (System.nanoTime() - lastSendStart >= 0) {
      batch.forEach(d -> giveUpUnsent(d, "not sent: its send cutoff passed while it waited for the executor"));
      return;
    }
    Instant startedAt = settings.clock().instant();
    List<Delivery> started = new ArrayList<>(batch.size());
    for (Delivery delivery : batch) {
      delivery.sendStartedAt = startedAt;
      if (delivery.state.compareAndSet(Delivery.QUEUED, Delivery.STARTED)) {
        started.add(delivery);
      }
    }
    if (started.size() < batch.size()) {
      started.forEach(d -> handBack(d, "not sent: part of its batch was given up before the send began"));
      return;
    }
    List<Outgoing> outgoing = new ArrayList<>(batch.size());
    for (Delivery delivery : batch) {
      CloudEventsMapping mapping = settings.cloudEvents().get(delivery.claim.message().destination());
      outgoing.add(new Outgoing(delivery.claim.message(),
          mapping == null ? null : CloudEvent.of(delivery.claim.entry(), mapping)));
    }
    // The leases of a claim all run from its time; the earliest of the batch is what the transport must respect.
    Instant claimedAt = batch.stream().map(d -> d.claim.leaseUntil()).min(Instant::compareTo).orElseThrow()
        .minus(settings.lease());
    CompletionStage<BatchOutcome> sending;
    try {
      sending = lane.deliverAll(outgoing, claimedAt);
    } catch (RuntimeException | Error e) {
      sending = CompletableFuture.failedFuture(e);
    }
    sending.whenComplete((outcome, error) -> {
      count(outcome, error);
      settle(batch, outcome, error);
    });
  }

  /** Counts an atomic batch that did not commit, by what became of it. */
  private void count(@Nullable BatchOutcome outcome, @Nullable Throwable error) {
    if (error != null || outcome == null || outcome instanceof BatchOutcome.InDoubt) {
      tally.add("atomic batches with an unknown outcome (fenced or unanswered; their entries wait for their lease, in"
          + " doubt)", 1);
    } else if (outcome instanceof BatchOutcome.Aborted || outcome instanceof BatchOutcome.AbortedBy) {
      tally.add("atomic batches aborted (their entries handed back or failed)", 1);
    } else if (outcome instanceof BatchOutcome.NotDelivered) {
      tally.add("atomic batches not delivered (their entries handed back)", 1);
    }
  }

  /** Gives each delivery of an atomic batch its part of the batch's outcome. */
  private static void settle(List<Delivery> batch, @Nullable BatchOutcome outcome, @Nullable Throwable error) {
    if (error != null || outcome == null) {
      String reason = error != null ? RelayLog.describe(unwrap(error)) : "transport completed without an outcome";
      batch.forEach(d -> inDoubt(d, "outcome unknown: " + reason));
    } else if (outcome instanceof BatchOutcome.Committed) {
      batch.forEach(d -> answer(d, DeliveryOutcome.delivered()));
    } else if (outcome instanceof BatchOutcome.Aborted aborted) {
      abortedByNoMember(batch, aborted.failure());
    } else if (outcome instanceof BatchOutcome.AbortedBy abortedBy
        && batch.stream().noneMatch(d -> d.claim.id().equals(abortedBy.culprit()))) {
      abortedByNoMember(batch, abortedBy.failure());
    } else if (outcome instanceof BatchOutcome.AbortedBy abortedBy) {
      for (Delivery delivery : batch) {
        if (delivery.claim.id().equals(abortedBy.culprit())) {
          delivery.sendStartedAt = null;
          answer(delivery, abortedBy.failure());
        } else {
          handBack(delivery, "not delivered: the batch was aborted by the failure of entry " + abortedBy.culprit());
        }
      }
    } else if (outcome instanceof BatchOutcome.NotDelivered notDelivered) {
      batch.forEach(d -> handBack(d, "not delivered: " + notDelivered.reason()));
    } else if (outcome instanceof BatchOutcome.InDoubt inDoubt) {
      batch.forEach(d -> inDoubt(d, "outcome unknown: " + inDoubt.reason()));
    }
  }

  /**
   * A batch aborted for a reason that is no member's own (the broker, the transaction, a culprit the batch does not
   * hold): every member fails with a failure of the destination, charged to none of them, so that a retry budget meant
   * for poison is not spent by the whole batch, and a permanent failure quarantines none of them. A destination that
   * says it is gone stays so.
   */
  private static void abortedByNoMember(List<Delivery> batch, DeliveryOutcome failure) {
    DeliveryOutcome destinations = failure;
    if (failure instanceof DeliveryOutcome.Retryable retryable) {
      destinations = new DeliveryOutcome.Retryable(retryable.reason(), retryable.retryAfter(), true);
    } else if (failure instanceof DeliveryOutcome.Permanent permanent && !permanent.destinationGone()) {
      destinations = DeliveryOutcome.unavailable("batch aborted, no single message at fault: " + permanent.reason());
    }
    DeliveryOutcome answer = destinations;
    batch.forEach(d -> {
      d.sendStartedAt = null; // aborted: no copy can land later
      answer(d, answer);
    });
  }

  private static void answer(Delivery delivery, DeliveryOutcome outcome) {
    if (delivery.state.compareAndSet(Delivery.STARTED, Delivery.ANSWERED)) {
      delivery.outcome.complete(outcome);
    }
  }

  /** A delivery of a batch of which nothing landed: handed back uncharged, as one never sent. */
  private static void handBack(Delivery delivery, String reason) {
    if (delivery.state.compareAndSet(Delivery.STARTED, Delivery.NOT_SENT)) {
      delivery.sendStartedAt = null;
      delivery.outcome.complete(DeliveryOutcome.retryable(reason));
    }
  }

  private static void inDoubt(Delivery delivery, String reason) {
    if (delivery.state.compareAndSet(Delivery.STARTED, Delivery.IN_DOUBT)) {
      delivery.outcome.complete(DeliveryOutcome.retryable(reason));
    }
  }

  /** @return the outcome of an answered delivery; never throws */
  static DeliveryOutcome outcomeOf(Delivery delivery) {
    try {
      return delivery.outcome.join();
    } catch (CompletionException e) {
      return DeliveryOutcome.retryable(RelayLog.describe(unwrap(e)));
    } catch (java.util.concurrent.CancellationException e) {
      return DeliveryOutcome.retryable("delivery cancelled");
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable current = error;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }
}

