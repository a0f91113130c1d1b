package dev.outbox4j.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The columns another application writes into the outbox table with plain SQL (docs/schema.md, "Writing an outbox row
 * from another application"), taken as they are: unlike a {@link dev.outbox4j.Message}, nothing here is checked, so a
 * test can write a row the store cannot read (a blank destination, headers that are not a JSON object of strings).
 *
 * <p>Immutable and thread-safe.
 *
 * @param id the row's id
 * @param destination the destination column's text, possibly blank
 * @param orderingKey the ordering key column's text, possibly blank, or {@code null} for none
 * @param payload the payload bytes
 * @param contentType the content type column's text, possibly blank
 * @param headers the headers column's text, possibly not JSON at all
 */
public record PlainSqlRow(UUID id, String destination, @Nullable String orderingKey, byte[] payload,
    String contentType, String headers) {
  /** @throws NullPointerException if a field other than the ordering key is {@code null} */
  public PlainSqlRow {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(headers, "headers");
    payload = payload.clone();
  }

  /**
   * @param destination the destination column's text
   * @param orderingKey the ordering key column's text, or {@code null}
   * @param payload the payload, as UTF-8 text
   * @param headers the headers column's text
   * @return a row with a random id and content type {@code application/json}
   */
  public static PlainSqlRow of(String destination, @Nullable String orderingKey, String payload, String headers) {
    return new PlainSqlRow(UUID.randomUUID(), destination, orderingKey, payload.getBytes(StandardCharsets.UTF_8),
        "application/json", headers);
  }

  /** @return a copy of the payload */
  @Override
  public byte[] payload() {
    return payload.clone();
  }
}
