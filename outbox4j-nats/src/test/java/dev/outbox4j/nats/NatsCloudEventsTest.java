package dev.outbox4j.nats;

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
 * PostgreSQL outbox → relay with CloudEvents → NATS transport → JetStream → a consumer reading each message with the
 * CloudEvents SDK's generic binary and structured readers, given the binding's {@code ce-} prefix and
 * {@code Content-Type}.
 */
class NatsCloudEventsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final NatsTestStream stream = new NatsTestStream();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("ce_nats_");

  @AfterEach
  void close() {
    outbox.close();
    stream.close();
  }

  private io.nats.client.Message relayAndReceive(CloudEventsMapping mapping, String destination) throws Exception {
    stream.startConsuming();
    try (NatsTransport transport = NatsTransport.builder().withServer(NatsTestStream.SERVER).build();
        Relay relay = outbox.relayWithFastRetries(transport).withCloudEvents(destination, mapping).build()) {
      relay.drain(10);
    }
    return stream.next(WAIT);
  }

  private static MessageReader sdkReader(io.nats.client.Message received) {
    Map<String, String> headers = new LinkedHashMap<>();
    received.getHeaders().forEach((name, values) -> headers.put(name, values.get(0)));
    return CloudEventsReadBack.reader(headers, "ce-", NatsTransport.CONTENT_TYPE_HEADER, received.getData());
  }

  private Message.Builder reading(String payload) {
    return Message.builder().withDestination(stream.subject()).withOrderingKey("meter-12").withPayload(payload)
        .withContentType("application/json")
        .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void binary_mode_maps_every_attribute_to_ce_headers_and_keeps_the_payload() throws Exception {
    Message message = reading("{\"kwh\":4.2}").withHeader(CloudEvent.SOURCE_HEADER, "/meters/12").build();
    outbox.write(List.of(message));
    OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();

    io.nats.client.Message received =
        relayAndReceive(CloudEventsMapping.binary("/meters", "com.example.reading"), stream.subject());

    assertThat(sdkReader(received).getEncoding()).isEqualTo(Encoding.BINARY);
    CloudEventsReadBack.assertMapped(sdkReader(received).toEvent(), entry, "/meters/12", "com.example.reading");
    assertThat(received.getData()).isEqualTo(message.payload());
    assertThat(received.getHeaders().getFirst(NatsTransport.MESSAGE_ID_HEADER)).isEqualTo(message.id().toString());
  }

  @Test
  void structured_mode_sends_the_json_event_as_the_data() throws Exception {
    Message message = reading("{\"kwh\":1.5}").build();
    outbox.write(List.of(message));
    OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();

    io.nats.client.Message received =
        relayAndReceive(CloudEventsMapping.structured("/meters", "com.example.reading"), stream.subject());

    assertThat(sdkReader(received).getEncoding()).isEqualTo(Encoding.STRUCTURED);
    CloudEventsReadBack.assertMapped(sdkReader(received).toEvent(), entry, "/meters", "com.example.reading");
  }

  @Test
  void a_destination_without_cloudevents_gets_no_ce_header() throws Exception {
    Message message = reading("{\"kwh\":0}").build();
    outbox.write(List.of(message));

    io.nats.client.Message received =
        relayAndReceive(CloudEventsMapping.binary("/meters", "com.example.reading"), "other.subject");

    assertThat(received.getData()).isEqualTo(message.payload());
    assertThat(received.getHeaders().keySet()).noneMatch(name -> name.toLowerCase().startsWith("ce-"));
    assertThat(received.getHeaders().getFirst(NatsTransport.CONTENT_TYPE_HEADER)).isEqualTo("application/json");
  }
}
