package dev.outbox4j.spi;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The CloudEvents 1.0 view of one outbox entry, computed by the relay for a destination that has a
 * {@link CloudEventsMapping} and handed to {@link Transport#deliver(Message, CloudEvent)}. Each transport writes it in
 * its protocol binding: binary mode puts {@link #attributes()} into headers under the binding's prefix and the content
 * type where the binding puts it; structured mode sends {@link #structuredJson(byte[])}.
 *
 * <p>The mapping:
 * <ul>
 *   <li>{@code id}: the message id; {@code specversion}: {@code 1.0};
 *   <li>{@code source} and {@code type}: the message's {@value #SOURCE_HEADER} and {@value #TYPE_HEADER} headers when
 *       present, else the destination's mapping;
 *   <li>{@code time}: when the write was recorded in the producer's transaction (the entry's creation time), RFC 3339
 *       in UTC;
 *   <li>{@code datacontenttype}: the message's content type;
 *   <li>{@code partitionkey} (Partitioning extension): the ordering key, when there is one;
 *   <li>{@code sequence} (Sequence extension): the entry's store sequence, which orders a key's entries in commit
 *       order, as 19 zero-padded decimal digits so that text order is number order; only with an ordering key;
 *   <li>{@code traceparent} and {@code tracestate} (Distributed Tracing extension): the message's headers of those
 *       names, when present (they are also sent under their own names, as without CloudEvents).
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @param id the {@code id} attribute
 * @param source the {@code source} attribute
 * @param type the {@code type} attribute
 * @param time the {@code time} attribute
 * @param dataContentType the {@code datacontenttype} attribute
 * @param partitionKey the {@code partitionkey} extension, or {@code null}
 * @param sequence the {@code sequence} extension, or {@code null}
 * @param traceparent the {@code traceparent} extension, or {@code null}
 * @param tracestate the {@code tracestate} extension, or {@code null}
 * @param mode how the transport writes the event
 */
public record CloudEvent(String id, String source, String type, Instant time, String dataContentType,
    @Nullable String partitionKey, @Nullable String sequence, @Nullable String traceparent,
    @Nullable String tracestate, CloudEventsMapping.Mode mode) {

  /** The specification version every event carries. */
  public static final String SPEC_VERSION = "1.0";
  /** Message header that overrides the destination's {@code type}; not sent as a header of its own. */
  public static final String TYPE_HEADER = "ce-type";
  /** Message header that overrides the destination's {@code source}; not sent as a header of its own. */
  public static final String SOURCE_HEADER = "ce-source";
  /** The content type of a structured-mode event. */
  public static final String STRUCTURED_CONTENT_TYPE = "application/cloudevents+json; charset=UTF-8";

  /** @throws NullPointerException if a required attribute is {@code null} */
  public CloudEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(time, "time");
    Objects.requireNonNull(dataContentType, "dataContentType");
    Objects.requireNonNull(mode, "mode");
  }

  /**
   * @param entry the entry being delivered
   * @param mapping its destination's mapping
   * @return the entry's event
   */
  public static CloudEvent of(OutboxEntry entry, CloudEventsMapping mapping) {
    Message message = entry.message();
    Map<String, String> headers = message.headers();
    String key = message.orderingKey().orElse(null);
    return new CloudEvent(message.id().toString(), headers.getOrDefault(SOURCE_HEADER, mapping.source()),
        headers.getOrDefault(TYPE_HEADER, mapping.type()), entry.createdAt(), message.contentType(), key,
        key == null ? null : String.format(Locale.ROOT, "%019d", entry.sequence()), headers.get("traceparent"),
        headers.get("tracestate"), mapping.mode());
  }

  /**
   * @param headerName a message header's name
   * @return whether it is one of the override headers, which a transport does not send under their own names
   */
  public static boolean isOverrideHeader(String headerName) {
    return headerName.equalsIgnoreCase(TYPE_HEADER) || headerName.equalsIgnoreCase(SOURCE_HEADER);
  }

  /**
   * @return every attribute but {@code datacontenttype} (which each binding carries in its own content-type field),
   *     by attribute name, in a fixed order: {@code specversion, id, source, type, time}, then the extensions present
   */
  public Map<String, String> attributes() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("specversion", SPEC_VERSION);
    attributes.put("id", id);
    attributes.put("source", source);
    attributes.put("type", type);
    attributes.put("time", time.toString());
    putIfPresent(attributes, "partitionkey", partitionKey);
    putIfPresent(attributes, "sequence", sequence);
    putIfPresent(attributes, "traceparent", traceparent);
    putIfPresent(attributes, "tracestate", tracestate);
    return Collections.unmodifiableMap(attributes);
  }

  private static void putIfPresent(Map<String, String> attributes, String name, @Nullable String value) {
    if (value != null) {
      attributes.put(name, value);
    }
  }

  /**
   * The event in the JSON event format. A JSON payload ({@code application/json} or a {@code +json} type) is the
   * {@code data} member byte for byte (so it must be valid JSON); any other payload is {@code data_base64}. An empty
   * payload has no data member.
   *
   * @param payload the message's payload
   * @return the UTF-8 JSON document
   */
  public byte[] structuredJson(byte[] payload) {
    ByteArrayOutputStream json = new ByteArrayOutputStream(payload.length + 512);
    StringBuilder head = new StringBuilder("{");
    Map<String, String> members = new LinkedHashMap<>(attributes());
    members.put("datacontenttype", dataContentType);
    members.forEach((name, value) -> {
      if (head.length() > 1) {
        head.append(',');
      }
      appendString(head, name).append(':');
      appendString(head, value);
    });
    json.writeBytes(head.toString().getBytes(StandardCharsets.UTF_8));
    if (payload.length > 0) {
      if (isJson(dataContentType)) {
        json.writeBytes(",\"data\":".getBytes(StandardCharsets.UTF_8));
        json.writeBytes(payload);
      } else {
        json.writeBytes((",\"data_base64\":\"" + Base64.getEncoder().encodeToString(payload) + "\"")
            .getBytes(StandardCharsets.UTF_8));
      }
    }
    json.write('}');
    return json.toByteArray();
  }

  /**
   * @param contentType a content type, parameters allowed
   * @return whether it names JSON ({@code application/json}, {@code text/json} or a {@code +json} suffix)
   */
  static boolean isJson(String contentType) {
    String media = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return media.equals("application/json") || media.equals("text/json") || media.endsWith("+json");
  }

  /**
   * Percent-encodes a header value as the HTTP binding (and the NATS binding after it) asks: space, {@code "},
   * {@code %} and every character outside printable ASCII, as the {@code %XX} of each UTF-8 byte.
   *
   * @param value an attribute value
   * @return the value as a header carries it
   */
  public static String percentEncoded(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c > 0x20 && c < 0x7f && c != '"' && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(String.format(Locale.ROOT, "%02X", c));
      }
    }
    return out.toString();
  }

  private static StringBuilder appendString(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }
}
