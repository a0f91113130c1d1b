package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.testkit.CloudEventsReadBack;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.core.message.MessageReader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL outbox → relay with CloudEvents → RabbitMQ transport → the real broker → a consumer reading each message
 * with the CloudEvents SDK's generic binary and structured readers, given the binding's {@code cloudEvents_} prefix
 * and the {@code content-type} property.
 */
class RabbitMqCloudEventsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("ce_rabbitmq_");

  @AfterEach
  void close() {
    outbox.close();
    broker.close();
  }

  private void relay(CloudEventsMapping mapping, String destination) {
    broker.startConsuming();
    try (RabbitMqTransport transport = RabbitMqTransport.builder().withPort(RabbitMqTestBroker.PORT).build();
        Relay relay = outbox.relayWithFastRetries(transport).withCloudEvents(destination, mapping).build()) {
      relay.drain(10);
    }
  }

  private static Map<String, String> headersOf(RabbitMqTestBroker.Delivery delivery) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (delivery.properties().getHeaders() != null) {
      delivery.properties().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
    }
    if (delivery.properties().getContentType() != null) {
      headers.put("content-type", delivery.properties().getContentType());
    }
    return headers;
  }

  private static MessageReader sdkReader(RabbitMqTestBroker.Delivery delivery) {
    return CloudEventsReadBack.reader(headersOf(delivery), "cloudEvents_", "content-type", delivery.body());
  }

  private Message.Builder shipment(String payload) {
    return Message.builder().withDestination(broker.destination()).withOrderingKey("parcel-9").withPayload(payload)
        .withContentType("application/json")
        .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void binary_mode_maps_every_attribute_to_cloudevents_headers() throws Exception {
    Message message = shipment("{\"weight\":3}").withHeader(CloudEvent.TYPE_HEADER, "com.example.parcel.sent").build();
    outbox.write(List.of(message));
    OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();

    relay(CloudEventsMapping.binary("/depot", "com.example.parcel"), broker.destination());

    RabbitMqTestBroker.Delivery delivery = broker.next(WAIT);
    assertThat(sdkReader(delivery).getEncoding()).isEqualTo(Encoding.BINARY);
    CloudEventsReadBack.assertMapped(sdkReader(delivery).toEvent(), entry, "/depot", "com.example.parcel.sent");
    assertThat(delivery.body()).isEqualTo(message.payload());
    assertThat(delivery.properties().getMessageId()).isEqualTo(message.id().toString());
    assertThat(delivery.properties().getHeaders()).doesNotContainKey(CloudEvent.TYPE_HEADER);
  }

  @Test
  void structured_mode_sends_the_json_event_as_the_body() throws Exception {
    Message message = shipment("[1,2,3]").build();
    outbox.write(List.of(message));
    OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();

    relay(CloudEventsMapping.structured("/depot", "com.example.parcel"), broker.destination());

    RabbitMqTestBroker.Delivery delivery = broker.next(WAIT);
    assertThat(delivery.properties().getContentType()).startsWith("application/cloudevents+json");
    assertThat(sdkReader(delivery).getEncoding()).isEqualTo(Encoding.STRUCTURED);
    CloudEventsReadBack.assertMapped(sdkReader(delivery).toEvent(), entry, "/depot", "com.example.parcel");
  }

  @Test
  void a_destination_without_cloudevents_is_published_unchanged() throws Exception {
    Message message = shipment("{\"weight\":1}").build();
    outbox.write(List.of(message));

    relay(CloudEventsMapping.binary("/depot", "com.example.parcel"), "some/other-destination");

    RabbitMqTestBroker.Delivery delivery = broker.next(WAIT);
    assertThat(delivery.body()).isEqualTo(message.payload());
    assertThat(delivery.properties().getContentType()).isEqualTo("application/json");
    assertThat(delivery.properties().getHeaders()).containsOnlyKeys("traceparent");
  }
}
