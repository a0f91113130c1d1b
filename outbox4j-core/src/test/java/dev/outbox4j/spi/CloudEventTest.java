package dev.outbox4j.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CloudEventTest {
  private static final Instant WRITTEN = Instant.parse("2030-01-02T03:04:05.123456Z");

  private static OutboxEntry entry(Message message, long sequence) {
    return new OutboxEntry(message, sequence, EntryStatus.PENDING, 0, null, null, WRITTEN, WRITTEN, null, null, 1);
  }

  @Test
  void the_attributes_follow_the_documented_mapping() {
    Message message = Message.builder().withDestination("orders").withOrderingKey("c-1").withPayload("{}")
        .withContentType("application/json").withHeader("traceparent", "00-ab-cd-01")
        .withHeader(CloudEvent.TYPE_HEADER, "com.example.special").build();

    CloudEvent event = CloudEvent.of(entry(message, 42), CloudEventsMapping.binary("/shop", "com.example.order"));

    assertThat(event.attributes()).containsExactly(
        Map.entry("specversion", "1.0"), Map.entry("id", message.id().toString()),
        Map.entry("source", "/shop"), Map.entry("type", "com.example.special"),
        Map.entry("time", "2030-01-02T03:04:05.123456Z"), Map.entry("partitionkey", "c-1"),
        Map.entry("sequence", "0000000000000000042"), Map.entry("traceparent", "00-ab-cd-01"));
    assertThat(event.dataContentType()).isEqualTo("application/json");
  }

  @Test
  void a_message_without_a_key_has_neither_partitionkey_nor_sequence() {
    Message message = Message.builder().withDestination("orders").withPayload(new byte[] {1}).build();

    CloudEvent event = CloudEvent.of(entry(message, 7), CloudEventsMapping.structured("/s", "t"));

    assertThat(event.attributes()).doesNotContainKeys("partitionkey", "sequence", "traceparent");
    assertThat(new String(event.structuredJson(message.payload()), StandardCharsets.UTF_8))
        .contains("\"datacontenttype\":\"application/octet-stream\"", "\"data_base64\":\"AQ==\"");
  }

  @Test
  void structured_json_embeds_a_json_payload_verbatim_and_escapes_attribute_text() {
    Message message = Message.builder().withDestination("orders").withPayload("{\"a\": [1, 2]}")
        .withContentType("application/vnd.x+json").withHeader(CloudEvent.SOURCE_HEADER, "/q\"uote\\").build();

    String json = new String(CloudEvent.of(entry(message, 1), CloudEventsMapping.structured("/s", "t"))
        .structuredJson(message.payload()), StandardCharsets.UTF_8);

    assertThat(json).endsWith(",\"data\":{\"a\": [1, 2]}}").contains("\"source\":\"/q\\\"uote\\\\\"");
  }

  @Test
  void a_blank_source_or_type_is_refused_by_name() {
    assertThatThrownBy(() -> CloudEventsMapping.binary(" ", "t")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source");
    assertThatThrownBy(() -> CloudEventsMapping.binary("/s", "")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("type");
  }
}
