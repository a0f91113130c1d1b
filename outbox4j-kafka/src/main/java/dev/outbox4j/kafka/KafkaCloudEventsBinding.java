package dev.outbox4j.kafka;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Writes a {@link CloudEvent} into a Kafka record per the CloudEvents Kafka protocol binding 1.0. The record key stays
 * the ordering key (the binding's {@code partitionkey} mapping). Binary mode: every attribute as a {@code ce_<name>}
 * header (UTF-8), {@code datacontenttype} as the {@code content-type} header, the payload as the value. Structured
 * mode: {@code content-type: application/cloudevents+json} and the JSON event as the value.
 *
 * <p>Stateless and thread-safe.
 */
final class KafkaCloudEventsBinding {
  /** The prefix of a binary-mode attribute header. */
  static final String PREFIX = "ce_";
  /** The header the binding puts the content type in. */
  static final String CONTENT_TYPE = "content-type";

  private KafkaCloudEventsBinding() {}

  /** @return the record value for this message and event */
  static byte[] value(Message message, CloudEvent event) {
    return event.mode() == CloudEventsMapping.Mode.STRUCTURED
        ? event.structuredJson(message.payload())
        : message.payload();
  }

  /**
   * @param headerName a header name
   * @return whether the binding writes a header of that name itself, or it is an override header
   */
  static boolean isBindingHeader(String headerName) {
    return headerName.toLowerCase(Locale.ROOT).startsWith(PREFIX) || headerName.equalsIgnoreCase(CONTENT_TYPE)
        || CloudEvent.isOverrideHeader(headerName);
  }

  /** Adds the content type and, in binary mode, the attribute headers. */
  static void writeHeaders(List<Header> headers, CloudEvent event) {
    if (event.mode() == CloudEventsMapping.Mode.STRUCTURED) {
      headers.add(header(CONTENT_TYPE, CloudEvent.STRUCTURED_CONTENT_TYPE));
      return;
    }
    headers.add(header(CONTENT_TYPE, event.dataContentType()));
    event.attributes().forEach((name, value) -> headers.add(header(PREFIX + name, value)));
  }

  private static Header header(String name, String value) {
    return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
