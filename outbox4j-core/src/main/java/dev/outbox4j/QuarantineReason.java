package dev.outbox4j;

import java.util.Objects;

/**
 * Why an entry is quarantined: a {@link QuarantineKind} to act on and a text for people.
 *
 * <p>Immutable and thread-safe.
 *
 * @param kind what kind of reason it is
 * @param text the human-readable reason; never blank (a store truncates it to its column width)
 */
public record QuarantineReason(QuarantineKind kind, String text) {
  /**
   * @throws NullPointerException if a field is {@code null}
   * @throws IllegalArgumentException if the text is blank
   */
  public QuarantineReason {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(text, "text");
    if (text.isBlank()) {
      throw new IllegalArgumentException("quarantine reason text must not be blank");
    }
  }

  /**
   * @param text what the transport said
   * @return a {@link QuarantineKind#PERMANENT_FAILURE} reason
   */
  public static QuarantineReason permanentFailure(String text) {
    return new QuarantineReason(QuarantineKind.PERMANENT_FAILURE, text);
  }

  /**
   * @param text what the destination said
   * @return a {@link QuarantineKind#DESTINATION_GONE} reason
   */
  public static QuarantineReason destinationGone(String text) {
    return new QuarantineReason(QuarantineKind.DESTINATION_GONE, text);
  }

  /**
   * @param text which budget ran out, and the last error
   * @return a {@link QuarantineKind#RETRIES_EXHAUSTED} reason
   */
  public static QuarantineReason retriesExhausted(String text) {
    return new QuarantineReason(QuarantineKind.RETRIES_EXHAUSTED, text);
  }
}
