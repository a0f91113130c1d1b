package dev.outbox4j.nats;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import io.nats.client.impl.Headers;
import java.util.Locale;

/**
 * Writes a {@link CloudEvent} into a NATS message per the CloudEvents NATS protocol binding. Binary mode (NATS 2.2+
 * headers): every attribute as a {@code ce-<name>} header, percent-encoded as in the HTTP binding,
 * {@code datacontenttype} as {@code Content-Type}, the payload as the data. Structured mode: the JSON event as the data,
 * with {@code Content-Type: application/cloudevents+json}.
 *
 * <p>Stateless and thread-safe.
 */
final class NatsCloudEventsBinding {
  /** The prefix of a binary-mode attribute header. */
  static final String PREFIX = "ce-";

  private NatsCloudEventsBinding() {}

  /** @return the data for this message and event */
  static byte[] data(Message message, CloudEvent event) {
    return event.mode() == CloudEventsMapping.Mode.STRUCTURED
        ? event.structuredJson(message.payload())
        : message.payload();
  }

  /**
   * Replaces any header under the binding's prefix (the override headers among them) and the content type with the
   * event's.
   *
   * @param headers the headers the transport is about to send; changed in place
   * @param event the event
   */
  static void writeHeaders(Headers headers, CloudEvent event) {
    headers.keySet().stream().filter(name -> name.toLowerCase(Locale.ROOT).startsWith(PREFIX)).toList()
        .forEach(headers::remove);
    if (event.mode() == CloudEventsMapping.Mode.STRUCTURED) {
      headers.put(NatsTransport.CONTENT_TYPE_HEADER, CloudEvent.STRUCTURED_CONTENT_TYPE);
      return;
    }
    headers.put(NatsTransport.CONTENT_TYPE_HEADER, event.dataContentType());
    event.attributes().forEach((name, value) -> headers.put(PREFIX + name, CloudEvent.percentEncoded(value)));
  }
}
