package dev.outbox4j.inbox;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;

/**
 * Turns a CloudEvent's identity into the id an {@link Inbox} records, so a consumer of CloudEvents dedupes on the
 * event's own identity instead of a transport header:
 * {@code inbox.receive(tx, "billing", CloudEventIdentity.of(event.getSource().toString(), event.getId()))}.
 *
 * <p>The CloudEvents specification makes {@code source} + {@code id} unique per distinct event, so {@link #of(String,
 * String)} is the identity to use for events from any producer. {@link #of(String)} uses the id alone, for events from
 * a single producer (outbox4j's events carry the message id, a UUID, which is then recorded as is, the same record as
 * a receive by message id).
 *
 * <p>Ids that are not UUIDs are mapped to a name-based UUID (version 3) of the source and id; a collision of two
 * different identities is as unlikely as an MD5 collision of short texts, which is negligible for deduplication (this
 * is no security boundary). Stateless and thread-safe.
 */
public final class CloudEventIdentity {
  private CloudEventIdentity() {}

  /**
   * @param source the event's {@code source}; non-blank
   * @param id the event's {@code id}; non-blank
   * @return the inbox id of that event: the same for the same pair, different for a different source or id
   * @throws IllegalArgumentException naming the attribute that is blank
   */
  public static UUID of(String source, String id) {
    requireText("source", source);
    requireText("id", id);
    // The source's length first, so ("ab", "c") and ("a", "bc") never name the same text.
    return UUID.nameUUIDFromBytes(("cloudevent:" + source.length() + ":" + source + id)
        .getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @param id the event's {@code id}; non-blank
   * @return the id itself when it is a UUID, else a name-based UUID of it
   * @throws IllegalArgumentException if the id is blank
   */
  public static UUID of(String id) {
    requireText("id", id);
    try {
      UUID parsed = UUID.fromString(id);
      if (parsed.toString().equals(id.toLowerCase(Locale.ROOT))) {
        return parsed;
      }
    } catch (IllegalArgumentException e) {
      // not a UUID: named below
    }
    return UUID.nameUUIDFromBytes(("cloudevent-id:" + id).getBytes(StandardCharsets.UTF_8));
  }

  private static void requireText(String name, String value) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException("CloudEvent " + name + " must not be blank");
    }
  }
}
