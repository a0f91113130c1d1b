package dev.outbox4j.http;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import java.net.http.HttpRequest;
import java.util.Locale;

/**
 * Writes a {@link CloudEvent} into an HTTP request per the CloudEvents HTTP protocol binding 1.0. Binary mode: every
 * attribute as a {@code ce-<name>} header, {@code datacontenttype} as {@code Content-Type}, the payload as the body.
 * Structured mode: {@code Content-Type: application/cloudevents+json} and the JSON event as the body.
 *
 * <p>Header values are percent-encoded where the binding asks for it: space, {@code "}, {@code %} and every character
 * outside printable ASCII (as UTF-8 bytes). Stateless and thread-safe.
 */
final class CloudEventsHttpBinding {
  /** The prefix of a binary-mode attribute header. */
  static final String PREFIX = "ce-";

  private CloudEventsHttpBinding() {}

  /** @return the body the request carries for this message and event */
  static byte[] body(Message message, CloudEvent event) {
    return event.mode() == CloudEventsMapping.Mode.STRUCTURED
        ? event.structuredJson(message.payload())
        : message.payload();
  }

  /** @return the request's {@code Content-Type} */
  static String contentType(CloudEvent event) {
    return event.mode() == CloudEventsMapping.Mode.STRUCTURED
        ? CloudEvent.STRUCTURED_CONTENT_TYPE
        : event.dataContentType();
  }

  /** Adds the binary-mode attribute headers; structured mode adds none. */
  static void writeHeaders(HttpRequest.Builder request, CloudEvent event) {
    if (event.mode() == CloudEventsMapping.Mode.BINARY) {
      event.attributes().forEach((name, value) -> request.header(PREFIX + name, CloudEvent.percentEncoded(value)));
    }
  }

  /**
   * @param headerName a message header's name
   * @return whether the binding writes a header of that name itself
   */
  static boolean isBindingHeader(String headerName) {
    return headerName.toLowerCase(Locale.ROOT).startsWith(PREFIX);
  }
}
