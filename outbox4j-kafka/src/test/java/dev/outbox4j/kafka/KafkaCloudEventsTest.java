package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.testkit.CloudEventsReadBack;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL outbox → relay with CloudEvents → Kafka transport → the in-process broker → a consumer reading each
 * record with the CloudEvents SDK's Kafka binding ({@code cloudevents-kafka}).
 */
class KafkaCloudEventsTest {
  private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("ce_kafka_");
  private final String topic = "ce-" + UUID.randomUUID();

  @AfterEach
  void close() {
    outbox.close();
  }

  private List<ConsumerRecord<byte[], byte[]>> relayAndRead(CloudEventsMapping mapping, String destination,
      int expected) {
    kafka.createTopic(topic, 2);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers()).build();
        Relay relay = outbox.relayWithFastRetries(transport).withCloudEvents(destination, mapping).build();
        KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      relay.drain(10);
      Instant until = Instant.now().plusSeconds(30);
      while (records.size() < expected && Instant.now().isBefore(until)) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    assertThat(records).hasSize(expected);
    records.sort((a, b) -> Long.compare(a.offset(), b.offset()));
    return records;
  }

  private Message.Builder keyed(String payload) {
    return Message.builder().withDestination(topic).withOrderingKey("account-3").withPayload(payload)
        .withContentType("application/json").withHeader("traceparent", TRACEPARENT);
  }

  @Test
  void binary_mode_maps_every_attribute_to_ce_headers_and_the_ordering_key_to_the_record_key() {
    Message placed = keyed("{\"amount\":5}").build();
    Message refunded = keyed("{\"amount\":-5}").withHeader(CloudEvent.SOURCE_HEADER, "/billing/refunds").build();
    outbox.write(List.of(placed, refunded));
    OutboxEntry placedEntry = outbox.store().find(placed.id()).orElseThrow();
    OutboxEntry refundedEntry = outbox.store().find(refunded.id()).orElseThrow();

    List<ConsumerRecord<byte[], byte[]>> records =
        relayAndRead(CloudEventsMapping.binary("/billing", "com.example.payment"), topic, 2);

    assertThat(KafkaMessageFactory.createReader(records.get(0)).getEncoding()).isEqualTo(Encoding.BINARY);
    CloudEventsReadBack.assertMapped(KafkaMessageFactory.createReader(records.get(0)).toEvent(), placedEntry,
        "/billing", "com.example.payment");
    CloudEventsReadBack.assertMapped(KafkaMessageFactory.createReader(records.get(1)).toEvent(), refundedEntry,
        "/billing/refunds", "com.example.payment");
    assertThat(new String(records.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("account-3");
    assertThat(records.get(0).value()).isEqualTo(placed.payload());
    assertThat(records.get(1).headers().lastHeader(CloudEvent.SOURCE_HEADER)).as("the override is not resent")
        .isNull();
  }

  @Test
  void structured_mode_puts_the_json_event_in_the_value() {
    Message message = keyed("{\"amount\":7}").build();
    outbox.write(List.of(message));
    OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();

    ConsumerRecord<byte[], byte[]> record =
        relayAndRead(CloudEventsMapping.structured("/billing", "com.example.payment"), topic, 1).get(0);

    assertThat(new String(record.headers().lastHeader("content-type").value(), StandardCharsets.UTF_8))
        .startsWith("application/cloudevents+json");
    assertThat(KafkaMessageFactory.createReader(record).getEncoding()).isEqualTo(Encoding.STRUCTURED);
    CloudEventsReadBack.assertMapped(KafkaMessageFactory.createReader(record).toEvent(), entry, "/billing",
        "com.example.payment");
  }

  @Test
  void a_destination_without_cloudevents_gets_no_ce_header() {
    Message message = keyed("{\"amount\":1}").build();
    outbox.write(List.of(message));

    ConsumerRecord<byte[], byte[]> record =
        relayAndRead(CloudEventsMapping.binary("/billing", "com.example.payment"), "another-destination", 1).get(0);

    assertThat(record.value()).isEqualTo(message.payload());
    List<String> names = new ArrayList<>();
    for (Header header : record.headers()) {
      names.add(header.key());
    }
    assertThat(names).containsExactlyInAnyOrder("traceparent", KafkaTransport.DEFAULT_CONTENT_TYPE_HEADER,
        KafkaTransport.DEFAULT_MESSAGE_ID_HEADER);
  }
}
