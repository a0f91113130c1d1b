package dev.outbox4j.spi;

import dev.outbox4j.Message;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

/**
 * The side of a transport that delivers a whole batch atomically and in order: every message of it lands, in the order
 * given, or none does (a Kafka transaction, as consumers that read committed data see it). A transport offers it per
 * destination through {@link Transport#atomicBatches(String)}; the relay never assumes it.
 *
 * <p>What the relay does with it:
 * <ul>
 *   <li>It claims runs of a key ({@link OutboxStore#claim(int, java.time.Instant, java.time.Duration, int)}) for the
 *       destinations this serves, and sends each batch's messages of this lane in one {@link #deliverAll} call, a
 *       key's run in its order.
 *   <li>It retires the entries only after {@link BatchOutcome.Committed}. After {@link BatchOutcome.AbortedBy} it records
 *       the culprit's failure by the usual rules and hands the others back uncharged; after {@link BatchOutcome.Aborted}
 *       every message gets the failure; after {@link BatchOutcome.NotDelivered} all are handed back uncharged; after
 *       {@link BatchOutcome.InDoubt} it records nothing and leaves the claims to their leases, so that the next claim
 *       finds the entries {@linkplain Claim#inDoubt() in doubt}.
 *   <li>Before it sends an entry in doubt, it asks {@link #deliveredEarlier} and retires, without sending them again,
 *       the ones that already landed. When that cannot be answered now, it records nothing about those entries and
 *       leaves them to their leases; when it can never be answered ({@link DeliveryRecordGoneException}), it
 *       quarantines them.
 * </ul>
 *
 * <p>Contract for implementers: a batch must never land after the lease of its claim has passed, even when the relay
 * that sent it froze at any point; {@link Transport#maxAnswerTime()} bounds, from the start of a send, when its outcome
 * is final; and {@link #deliveredEarlier} must only answer once every earlier send of those messages is final. Thread-safe.
 */
public interface AtomicBatches {

  /**
   * Delivers a batch atomically and in order.
   *
   * @param batch the messages, in the order they must land; never empty
   * @param claimedAt when the claim of these entries was made: their leases count from it
   * @return a stage completed once the batch's outcome is known, or known to be unknown
   */
  CompletionStage<BatchOutcome> deliverAll(List<Outgoing> batch, Instant claimedAt);

  /**
   * Says which of these messages an earlier batch already delivered, for entries in doubt.
   *
   * @param messages messages whose earlier sends may have landed
   * @param since the earliest claim under which one of them may have been sent ({@link Claim#inDoubtSince()})
   * <p>The relay waits for the answer a quarter of its lease, then cancels the stage
   * ({@link java.util.concurrent.CompletableFuture#cancel}, on {@code toCompletableFuture()}): return a stage whose
   * cancellation stops the look-up and frees what it holds, and let no look-up wait for another.
   *
   * @return a stage completed with the ids of the messages that landed; exceptionally with a
   *     {@link DeliveryRecordGoneException} when that can never be told any more (the relay quarantines those entries),
   *     or with another exception when it cannot be told now (the relay leaves them to their leases)
   */
  CompletionStage<Set<UUID>> deliveredEarlier(Collection<Message> messages, Instant since);
}
