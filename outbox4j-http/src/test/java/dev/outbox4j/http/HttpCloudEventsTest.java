package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.standardwebhooks.Webhook;
import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.testkit.CloudEventsReadBack;
import io.cloudevents.core.message.Encoding;
import io.cloudevents.core.message.MessageReader;
import io.cloudevents.http.HttpMessageFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL outbox → relay with CloudEvents → HTTP transport → a real local receiver, read back with the CloudEvents
 * SDK's HTTP binding ({@code cloudevents-http-basic}).
 */
class HttpCloudEventsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private final WebhookServer server = new WebhookServer();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("ce_http_");

  @AfterEach
  void stop() {
    outbox.close();
    server.close();
  }

  private static Message order(String payload) {
    return Message.builder().withDestination("orders").withOrderingKey("customer-7")
        .withPayload(payload).withContentType("application/json").withHeader("traceparent", TRACEPARENT).build();
  }

  private OutboxEntry stored(Message message) {
    return outbox.store().find(message.id()).orElseThrow();
  }

  private void relay(HttpTransport transport, CloudEventsMapping mapping) {
    try (Relay relay = outbox.relayWithFastRetries(transport).withCloudEvents("orders", mapping).build()) {
      relay.drain(10);
    }
  }

  private static MessageReader sdkReader(WebhookServer.Request request) {
    Map<String, List<String>> headers = request.headers().entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> List.of(e.getValue())));
    return HttpMessageFactory.createReaderFromMultimap(headers, request.body());
  }

  private HttpTransport transport() {
    return HttpTransport.builder().withEndpoint("orders", server.uri("/ok")).withEndpoint("plain", server.uri("/ok"))
        .withSigningSecret(StandardWebhooksTest.SECRET).build();
  }

  @Test
  void binary_mode_carries_every_attribute_in_ce_headers_and_the_payload_verbatim() throws Exception {
    Message first = order("{\"total\":12}");
    Message second = Message.builder().withDestination("orders").withOrderingKey("customer-7")
        .withPayload(new byte[] {0, 1, 2, (byte) 0xff}).withContentType("application/octet-stream")
        .withHeader(CloudEvent.TYPE_HEADER, "com.example.order.refunded").build();
    outbox.write(List.of(first, second));
    OutboxEntry firstEntry = stored(first);
    OutboxEntry secondEntry = stored(second);

    try (HttpTransport transport = transport()) {
      relay(transport, CloudEventsMapping.binary("/shop/orders", "com.example.order.placed"));
    }

    WebhookServer.Request one = server.next(WAIT);
    WebhookServer.Request two = server.next(WAIT);
    assertThat(sdkReader(one).getEncoding()).isEqualTo(Encoding.BINARY);
    CloudEventsReadBack.assertMapped(sdkReader(one).toEvent(), firstEntry, "/shop/orders", "com.example.order.placed");
    CloudEventsReadBack.assertMapped(sdkReader(two).toEvent(), secondEntry, "/shop/orders",
        "com.example.order.refunded");
    assertThat(one.body()).isEqualTo(first.payload());
    assertThat(one.header("traceparent")).as("kept under its own name too").isEqualTo(TRACEPARENT);
    assertThat(sdkReader(two).toEvent().getExtension("sequence").toString())
        .isGreaterThan(sdkReader(one).toEvent().getExtension("sequence").toString());
    new Webhook(StandardWebhooksTest.SECRET).verify(new String(one.body(), StandardCharsets.UTF_8),
        Map.of("webhook-id", List.of(one.header("webhook-id")),
            "webhook-timestamp", List.of(one.header("webhook-timestamp")),
            "webhook-signature", List.of(one.header("webhook-signature"))));
  }

  @Test
  void attribute_values_outside_printable_ascii_are_percent_encoded_per_the_binding() throws Exception {
    Message message = Message.builder().withDestination("orders").withOrderingKey("kunde 7 ü%")
        .withPayload("{}").withContentType("application/json").build();
    outbox.write(List.of(message));

    try (HttpTransport transport = transport()) {
      relay(transport, CloudEventsMapping.binary("/shop/orders", "com.example.order.placed"));
    }

    assertThat(server.next(WAIT).header("ce-partitionkey")).isEqualTo("kunde%207%20%C3%BC%25");
  }

  @Test
  void structured_mode_sends_the_whole_event_as_json() throws Exception {
    Message message = order("{\"total\":12,\"lines\":[1,2]}");
    outbox.write(List.of(message));
    OutboxEntry entry = stored(message);

    try (HttpTransport transport = transport()) {
      relay(transport, CloudEventsMapping.structured("/shop/orders", "com.example.order.placed"));
    }

    WebhookServer.Request request = server.next(WAIT);
    assertThat(request.header("content-type")).startsWith("application/cloudevents+json");
    assertThat(request.headers().keySet()).noneMatch(name -> name.startsWith("ce-"));
    assertThat(sdkReader(request).getEncoding()).isEqualTo(Encoding.STRUCTURED);
    CloudEventsReadBack.assertMapped(sdkReader(request).toEvent(), entry, "/shop/orders", "com.example.order.placed");
  }

  @Test
  void a_destination_without_cloudevents_is_sent_unchanged() throws Exception {
    Message message = Message.builder().withDestination("plain").withPayload("{\"total\":12}")
        .withContentType("application/json").withHeader(CloudEvent.TYPE_HEADER, "left.alone").build();
    outbox.write(List.of(message));

    try (HttpTransport transport = transport()) {
      relay(transport, CloudEventsMapping.binary("/shop/orders", "com.example.order.placed"));
    }

    WebhookServer.Request request = server.next(WAIT);
    assertThat(request.body()).isEqualTo(message.payload());
    assertThat(request.header("content-type")).isEqualTo("application/json");
    assertThat(request.headers().keySet()).filteredOn(name -> name.startsWith("ce-")).containsExactly("ce-type");
    assertThat(request.header("ce-type")).as("an ordinary header without CloudEvents").isEqualTo("left.alone");
  }
}
