package dev.outbox4j.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link Transport} reports for one message: confirmed by the broker, failed in a way worth retrying (with an
 * optional server-requested delay), or failed permanently (retrying cannot help; the entry is quarantined).
 *
 * <p>A retryable failure either concerns this message alone (the relay charges it an attempt) or says that the
 * transport as a whole is unavailable ({@link #unavailable}: broker down, connection lost, resource alarm). The relay
 * never charges an attempt for an outage: it pauses delivery, probes with a small batch, and carries on when the
 * transport answers again. The relay also recognises an outage by itself (a destination that confirms nothing while
 * its deliveries fail), and charges a plain retryable failure only when the destination is seen taking other
 * messages, so saying so is a help, not a duty. A status a server also uses for single messages (HTTP 503) is better
 * left plain retryable: the confirmations decide.
 *
 * <p>Immutable and thread-safe.
 */
public sealed interface DeliveryOutcome {

  /** @return the outcome for a message the broker confirmed */
  static DeliveryOutcome delivered() {
    return Delivered.INSTANCE;
  }

  /**
   * @param reason what failed, for the entry's last error; never the payload
   * @return a retryable failure, retried on the relay's schedule
   */
  static DeliveryOutcome retryable(String reason) {
    return new Retryable(reason, null);
  }

  /**
   * @param reason what failed, for the entry's last error; never the payload
   * @return a retryable failure that says the transport as a whole cannot deliver now (broker unreachable, connection
   *     closed, publishing blocked): the relay pauses instead of charging the entry an attempt
   */
  static DeliveryOutcome unavailable(String reason) {
    return new Retryable(reason, null, true);
  }

  /**
   * @param reason what failed
   * @param retryAfter the delay the broker or server asked for (for example HTTP {@code Retry-After}); the relay waits
   *     at least this long
   * @return a retryable failure with a requested delay; the relay caps it at its retry policy's cap
   */
  static DeliveryOutcome retryableAfter(String reason, Duration retryAfter) {
    return new Retryable(reason, retryAfter);
  }

  /**
   * @param reason why no retry can succeed (for example an unknown destination or a rejected payload)
   * @return a permanent failure; the entry is quarantined with this reason
   */
  static DeliveryOutcome permanent(String reason) {
    return new Permanent(reason);
  }

  /**
   * @param reason what the destination said (for example {@code HTTP 410 Gone from <uri>})
   * @return a permanent failure that says the destination as a whole is gone for good: the relay quarantines the entry
   *     with {@link dev.outbox4j.QuarantineKind#DESTINATION_GONE} and pauses the destination until an operator resumes
   *     it, so nothing more is sent there
   */
  static DeliveryOutcome gone(String reason) {
    return new Permanent(reason, true);
  }

  /** Who a pause set by a {@link #gone} outcome names ({@code OutboxStore.pauseDestination}'s {@code by}). */
  String GONE_PAUSED_BY = "outbox4j relay (destination gone)";

  /** The broker confirmed the message. */
  enum Delivered implements DeliveryOutcome {
    /** The only instance. */
    INSTANCE
  }

  /**
   * A failure worth retrying.
   *
   * @param reason what failed
   * @param retryAfter the delay the other side asked for, or {@code null}
   * @param transportUnavailable {@code true} when the failure says the transport as a whole is down, not that this
   *     message failed (see {@link #unavailable})
   */
  record Retryable(String reason, @Nullable Duration retryAfter, boolean transportUnavailable)
      implements DeliveryOutcome {
    /**
     * A failure of this message.
     *
     * @param reason what failed
     * @param retryAfter the delay the other side asked for, or {@code null}
     */
    public Retryable(String reason, @Nullable Duration retryAfter) {
      this(reason, retryAfter, false);
    }

    /** @throws IllegalArgumentException if retryAfter is negative */
    public Retryable {
      Objects.requireNonNull(reason, "reason");
      if (retryAfter != null && retryAfter.isNegative()) {
        throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
      }
    }

    /** @return the requested delay, if the other side named one */
    public Optional<Duration> requestedDelay() {
      return Optional.ofNullable(retryAfter);
    }
  }

  /**
   * A failure no retry can fix.
   *
   * @param reason why
   * @param destinationGone {@code true} when the whole destination is gone for good (see {@link #gone}), not only this
   *     message refused
   */
  record Permanent(String reason, boolean destinationGone) implements DeliveryOutcome {
    /**
     * A permanent failure of this message.
     *
     * @param reason why
     */
    public Permanent(String reason) {
      this(reason, false);
    }

    /** @throws NullPointerException if reason is {@code null} */
    public Permanent {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
