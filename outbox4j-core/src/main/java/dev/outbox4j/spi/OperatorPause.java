package dev.outbox4j.spi;

import dev.outbox4j.Message;
import java.time.Instant;
import java.util.Objects;

/**
 * A destination an operator paused by hand ({@link OutboxStore#pauseDestination}). Every relay on the store holds back
 * the destination's entries, uncharged and without probes, until the operator resumes it; every other destination
 * flows.
 *
 * <p>Immutable and thread-safe.
 *
 * @param destination the destination, as messages name it; not blank, at most {@value Message#MAX_NAME_LENGTH}
 *     characters
 * @param pausedAt when it was paused
 * @param pausedBy who paused it (a user or tool name, free text); not blank, at most {@value #MAX_BY_LENGTH}
 *     characters
 * @param reason why, in words; may be empty; at most {@value #MAX_REASON_LENGTH} characters
 */
public record OperatorPause(String destination, Instant pausedAt, String pausedBy, String reason) {
  /** Longest {@code pausedBy} a store keeps. */
  public static final int MAX_BY_LENGTH = 255;
  /** Longest {@code reason} a store keeps. */
  public static final int MAX_REASON_LENGTH = 2000;

  /** @throws IllegalArgumentException if the destination or pausedBy is blank, or a field is too long */
  public OperatorPause {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(pausedAt, "pausedAt");
    Objects.requireNonNull(pausedBy, "pausedBy");
    Objects.requireNonNull(reason, "reason");
    if (destination.isBlank()) {
      throw new IllegalArgumentException("destination must not be blank");
    }
    if (destination.length() > Message.MAX_NAME_LENGTH) {
      throw new IllegalArgumentException("destination must be at most " + Message.MAX_NAME_LENGTH
          + " characters, was " + destination.length());
    }
    if (pausedBy.isBlank()) {
      throw new IllegalArgumentException("pausedBy must not be blank");
    }
    if (pausedBy.length() > MAX_BY_LENGTH || reason.length() > MAX_REASON_LENGTH) {
      throw new IllegalArgumentException("pausedBy must be at most " + MAX_BY_LENGTH + " and reason at most "
          + MAX_REASON_LENGTH + " characters");
    }
  }

  /**
   * A pause as a store keeps it: {@code by} and {@code reason} truncated to their longest lengths.
   *
   * @param destination the destination; not blank, at most {@value Message#MAX_NAME_LENGTH} characters
   * @param by who pauses it; not blank
   * @param reason why; may be empty
   * @param now when
   * @return the pause
   * @throws IllegalArgumentException if destination or by is blank, or destination is too long
   */
  public static OperatorPause of(String destination, String by, String reason, Instant now) {
    Objects.requireNonNull(by, "by");
    Objects.requireNonNull(reason, "reason");
    return new OperatorPause(destination, now, clip(by, MAX_BY_LENGTH), clip(reason, MAX_REASON_LENGTH));
  }

  private static String clip(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max);
  }

  /** @return the reason a relay records on the entries it holds back: {@code paused by <by>: <reason>} */
  public String heldBackReason() {
    return reason.isEmpty() ? "paused by " + pausedBy : "paused by " + pausedBy + ": " + reason;
  }
}
