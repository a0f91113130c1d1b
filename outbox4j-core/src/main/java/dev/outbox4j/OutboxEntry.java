package dev.outbox4j;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The durable record of one message and its delivery state, as a store returned it (or as a caller prepares it for
 * {@link dev.outbox4j.spi.OutboxStore#save}).
 *
 * <p>{@link #version()} changes with every mutation, claims included; entry-face mutations use it to detect that
 * another writer changed the entry since it was read. {@link #sequence()} orders entries for delivery: within an
 * ordering key it follows commit order.
 *
 * <p>Immutable and thread-safe.
 *
 * @param message the message, verbatim
 * @param sequence the store-assigned delivery order; {@code 0} for an entry not yet stored
 * @param status the delivery state
 * @param attempts failed delivery attempts so far
 * @param lastError the last failure's description, or {@code null}
 * @param quarantineReason why the entry stopped being retried, or {@code null} unless quarantined
 * @param createdAt when the entry was written
 * @param availableAt the earliest time it may be claimed: its not-before time, then its next attempt time
 * @param deliveredAt when it was confirmed, or {@code null}
 * @param deliveryResult what the entry-face {@code markDelivered} recorded, or {@code null}
 * @param version the optimistic-concurrency version; {@code 0} for an entry not yet stored (the only version
 *     {@link dev.outbox4j.spi.OutboxStore#save} inserts; any other version names an entry read from the store)
 * @param quarantineKind what kind of reason {@code quarantineReason} is, or {@code null} unless quarantined (and for
 *     entries quarantined before schema version 3 whose kind could not be told)
 * @param firstFailedAt when its first charged delivery attempt failed (set by the first {@code markFailed}, kept until a
 *     requeue), or {@code null} when no attempt failed since it was written or requeued; the retry policy's time budget
 *     counts from it. Postponements (an outage, no attempt charged) do not set it
 */
public record OutboxEntry(
    Message message,
    long sequence,
    EntryStatus status,
    int attempts,
    @Nullable String lastError,
    @Nullable String quarantineReason,
    Instant createdAt,
    Instant availableAt,
    @Nullable Instant deliveredAt,
    @Nullable String deliveryResult,
    long version,
    @Nullable QuarantineKind quarantineKind,
    @Nullable Instant firstFailedAt) {

  /**
   * @throws NullPointerException if a required field is {@code null}
   * @throws IllegalArgumentException if attempts, sequence or version is negative
   */
  public OutboxEntry {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(availableAt, "availableAt");
    if (attempts < 0 || sequence < 0 || version < 0) {
      throw new IllegalArgumentException("attempts, sequence and version must not be negative");
    }
  }

  /**
   * An entry that never failed a charged attempt.
   *
   * @throws NullPointerException if a required field is {@code null}
   * @throws IllegalArgumentException if attempts, sequence or version is negative
   */
  public OutboxEntry(Message message, long sequence, EntryStatus status, int attempts, @Nullable String lastError,
      @Nullable String quarantineReason, Instant createdAt, Instant availableAt, @Nullable Instant deliveredAt,
      @Nullable String deliveryResult, long version, @Nullable QuarantineKind quarantineKind) {
    this(message, sequence, status, attempts, lastError, quarantineReason, createdAt, availableAt, deliveredAt,
        deliveryResult, version, quarantineKind, null);
  }

  /**
   * An entry without a quarantine kind (every status but {@link EntryStatus#QUARANTINED}) that never failed a charged
   * attempt.
   *
   * @throws NullPointerException if a required field is {@code null}
   * @throws IllegalArgumentException if attempts, sequence or version is negative
   */
  public OutboxEntry(Message message, long sequence, EntryStatus status, int attempts, @Nullable String lastError,
      @Nullable String quarantineReason, Instant createdAt, Instant availableAt, @Nullable Instant deliveredAt,
      @Nullable String deliveryResult, long version) {
    this(message, sequence, status, attempts, lastError, quarantineReason, createdAt, availableAt, deliveredAt,
        deliveryResult, version, null, null);
  }

  /** @return the typed quarantine reason when the entry is quarantined with a known kind, else empty */
  public java.util.Optional<QuarantineReason> quarantine() {
    return quarantineKind == null || quarantineReason == null || quarantineReason.isBlank()
        ? java.util.Optional.empty()
        : java.util.Optional.of(new QuarantineReason(quarantineKind, quarantineReason));
  }

  /**
   * A new pending entry for a message, not yet stored.
   *
   * @param message the message
   * @param createdAt the write time; the entry is available at the message's not-before time, or at this time
   * @return a pending entry with version 0
   */
  public static OutboxEntry pending(Message message, Instant createdAt) {
    return new OutboxEntry(message, 0, EntryStatus.PENDING, 0, null, null, createdAt,
        message.notBefore().orElse(createdAt), null, null, 0);
  }

  /** @return the message id, which is also the entry id */
  public UUID id() {
    return message.id();
  }

  /**
   * @param newStatus the status for the copy
   * @return a copy with that status
   */
  public OutboxEntry withStatus(EntryStatus newStatus) {
    return new OutboxEntry(message, sequence, newStatus, attempts, lastError, quarantineReason, createdAt,
        availableAt, deliveredAt, deliveryResult, version, quarantineKind, firstFailedAt);
  }

  /**
   * @param reason the quarantine reason for the copy, or {@code null} to clear it
   * @return a copy with that reason and kind (the status is not changed)
   */
  public OutboxEntry withQuarantine(@Nullable QuarantineReason reason) {
    return new OutboxEntry(message, sequence, status, attempts, lastError, reason == null ? null : reason.text(),
        createdAt, availableAt, deliveredAt, deliveryResult, version, reason == null ? null : reason.kind(),
        firstFailedAt);
  }

  /**
   * @param newAttempts attempts for the copy
   * @param newLastError last error for the copy, may be {@code null}
   * @return a copy with those values
   */
  public OutboxEntry withAttempts(int newAttempts, @Nullable String newLastError) {
    return new OutboxEntry(message, sequence, status, newAttempts, newLastError, quarantineReason, createdAt,
        availableAt, deliveredAt, deliveryResult, version, quarantineKind, firstFailedAt);
  }

  /**
   * @param newAvailableAt the earliest claim time for the copy
   * @return a copy available at that time
   */
  public OutboxEntry withAvailableAt(Instant newAvailableAt) {
    return new OutboxEntry(message, sequence, status, attempts, lastError, quarantineReason, createdAt,
        newAvailableAt, deliveredAt, deliveryResult, version, quarantineKind, firstFailedAt);
  }

  /**
   * @param time when the first charged attempt failed for the copy, or {@code null} to clear it
   * @return a copy with that first-failure time
   */
  public OutboxEntry withFirstFailedAt(@Nullable Instant time) {
    return new OutboxEntry(message, sequence, status, attempts, lastError, quarantineReason, createdAt, availableAt,
        deliveredAt, deliveryResult, version, quarantineKind, time);
  }

  /** Never includes the payload. */
  @Override
  public String toString() {
    return "OutboxEntry{id=" + id() + ", destination=" + message.destination()
        + message.orderingKey().map(k -> ", key=" + k).orElse("") + ", seq=" + sequence + ", status=" + status
        + ", attempts=" + attempts + ", version=" + version + "}";
  }
}
