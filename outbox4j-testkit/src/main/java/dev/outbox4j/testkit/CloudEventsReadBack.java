package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.OutboxEntry;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.data.BytesCloudEventData;
import io.cloudevents.core.message.MessageReader;
import io.cloudevents.core.message.impl.BaseGenericBinaryMessageReaderImpl;
import io.cloudevents.core.message.impl.GenericStructuredMessageReader;
import io.cloudevents.core.message.impl.MessageUtils;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Reads CloudEvents messages back with the CloudEvents Java SDK and checks them against the outbox entry they came
 * from, for the transport tests. Needs {@code io.cloudevents:cloudevents-core} on the test class path (and
 * {@code cloudevents-json-jackson} for structured mode).
 *
 * <p>For a protocol whose binding the SDK has no reader for here (AMQP 0-9-1 headers, NATS headers),
 * {@link #reader} builds one on the SDK's generic binary and structured readers: the SDK, not our code, decides what
 * the headers mean.
 */
public final class CloudEventsReadBack {
  private CloudEventsReadBack() {}

  /**
   * @param headers the received headers, by name
   * @param prefix the binding's attribute prefix ({@code ce-}, {@code cloudEvents_})
   * @param contentTypeHeader the header carrying the content type (compared ignoring case)
   * @param body the received body
   * @return the SDK's reader for that message, binary or structured as its content type says
   */
  public static MessageReader reader(Map<String, String> headers, String prefix, String contentTypeHeader,
      byte[] body) {
    String lowerPrefix = prefix.toLowerCase(Locale.ROOT);
    String contentType = headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(contentTypeHeader))
        .map(Map.Entry::getValue).findFirst().orElse(null);
    String specVersion = headers.entrySet().stream()
        .filter(e -> e.getKey().equalsIgnoreCase(prefix + "specversion")).map(Map.Entry::getValue).findFirst()
        .orElse(null);
    return MessageUtils.parseStructuredOrBinaryMessage(() -> contentType,
        format -> new GenericStructuredMessageReader(format, body), () -> specVersion,
        version -> new BaseGenericBinaryMessageReaderImpl<String, String>(version,
            body.length == 0 ? null : BytesCloudEventData.wrap(body)) {
          @Override
          protected boolean isContentTypeHeader(String key) {
            return key.equalsIgnoreCase(contentTypeHeader);
          }

          @Override
          protected boolean isCloudEventsHeader(String key) {
            return key.toLowerCase(Locale.ROOT).startsWith(lowerPrefix);
          }

          @Override
          protected String toCloudEventsKey(String key) {
            return key.substring(prefix.length()).toLowerCase(Locale.ROOT);
          }

          @Override
          protected void forEachHeader(BiConsumer<String, String> fn) {
            headers.forEach(fn);
          }

          @Override
          protected String toCloudEventsValue(String value) {
            return value;
          }
        });
  }

  /**
   * Asserts that the event carries every attribute of the documented mapping for the entry, and its payload verbatim.
   *
   * @param event the event as the SDK read it
   * @param entry the entry as the store held it before delivery
   * @param source the expected {@code source}
   * @param type the expected {@code type}
   */
  public static void assertMapped(CloudEvent event, OutboxEntry entry, String source, String type) {
    assertThat(event.getSpecVersion()).isEqualTo(SpecVersion.V1);
    assertThat(event.getId()).isEqualTo(entry.id().toString());
    assertThat(event.getSource()).hasToString(source);
    assertThat(event.getType()).isEqualTo(type);
    assertThat(event.getTime()).isNotNull();
    assertThat(event.getTime().toInstant()).isEqualTo(entry.createdAt());
    assertThat(event.getDataContentType()).isEqualTo(entry.message().contentType());
    String key = entry.message().orderingKey().orElse(null);
    assertThat(event.getExtension("partitionkey")).isEqualTo(key);
    assertThat(event.getExtension("sequence"))
        .isEqualTo(key == null ? null : String.format(Locale.ROOT, "%019d", entry.sequence()));
    assertThat(event.getExtension("traceparent")).isEqualTo(entry.message().headers().get("traceparent"));
    assertThat(event.getData()).isNotNull();
    assertThat(event.getData().toBytes()).isEqualTo(entry.message().payload());
  }
}
