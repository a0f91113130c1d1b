package dev.outbox4j.rabbitmq;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a {@link CloudEvent} into an AMQP 0-9-1 message following the CloudEvents AMQP protocol binding 1.0: what that
 * binding puts in AMQP 1.0 application properties goes into the message's headers table, the nearest AMQP 0-9-1 field.
 * Binary mode: every attribute as a {@code cloudEvents_<name>} header (a string), {@code datacontenttype} as the
 * {@code content-type} property, the payload as the body. Structured mode: {@code content-type}
 * {@code application/cloudevents+json} and the JSON event as the body.
 *
 * <p>Stateless and thread-safe.
 */
final class RabbitMqCloudEventsBinding {
  /** The prefix of a binary-mode attribute header. */
  static final String PREFIX = "cloudEvents_";

  private RabbitMqCloudEventsBinding() {}

  /** @return the body for this message and event */
  static byte[] body(Message message, CloudEvent event) {
    return event.mode() == CloudEventsMapping.Mode.STRUCTURED
        ? event.structuredJson(message.payload())
        : message.payload();
  }

  /** @return the {@code content-type} property */
  static String contentType(CloudEvent event) {
    return event.mode() == CloudEventsMapping.Mode.STRUCTURED
        ? CloudEvent.STRUCTURED_CONTENT_TYPE
        : event.dataContentType();
  }

  /**
   * Replaces the override headers and any header under the binding's prefix with the event's attribute headers
   * (binary mode) or with nothing (structured mode).
   *
   * @param headers the message's headers, as the transport is about to send them; changed in place
   * @param event the event
   */
  static void writeHeaders(Map<String, Object> headers, CloudEvent event) {
    headers.keySet().removeIf(name -> CloudEvent.isOverrideHeader(name)
        || name.toLowerCase(Locale.ROOT).startsWith(PREFIX.toLowerCase(Locale.ROOT)));
    if (event.mode() == CloudEventsMapping.Mode.BINARY) {
      event.attributes().forEach((name, value) -> headers.put(PREFIX + name, value));
    }
  }
}
