package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** RabbitMQ-specific behaviour, against the real broker on 127.0.0.1:5672. */
class RabbitMqTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static RabbitMqTransport transport() {
    return RabbitMqTransport.builder().withHost("127.0.0.1").withPort(RabbitMqTestBroker.PORT).build();
  }

  private static Message message(String destination, String text) {
    return Message.builder().withDestination(destination).withPayload(text).withContentType("application/json")
        .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").build();
  }

  private static DeliveryOutcome deliver(RabbitMqTransport transport, Message message) throws Exception {
    return transport.deliver(message).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void a_mandatory_publish_no_queue_receives_is_a_permanent_failure_and_its_batch_mates_still_arrive()
      throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker(); RabbitMqTransport transport = transport()) {
      broker.startConsuming();
      CompletableFuture<DeliveryOutcome> before =
          transport.deliver(message(broker.destination(), "{\"n\":1}")).toCompletableFuture();
      CompletableFuture<DeliveryOutcome> unroutable =
          transport.deliver(message(broker.exchange + "/nobody-listens", "{\"n\":2}")).toCompletableFuture();
      CompletableFuture<DeliveryOutcome> after =
          transport.deliver(message(broker.destination(), "{\"n\":3}")).toCompletableFuture();

      assertThat(unroutable.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOfSatisfying(DeliveryOutcome.Permanent.class,
              p -> assertThat(p.reason()).contains("NO_ROUTE").contains("nobody-listens"));
      assertThat(before.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(DeliveryOutcome.delivered());
      assertThat(after.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(DeliveryOutcome.delivered());
      assertThat(new String(broker.next(WAIT).body())).isEqualTo("{\"n\":1}");
      assertThat(new String(broker.next(WAIT).body())).isEqualTo("{\"n\":3}");
    }
  }

  @Test
  void a_missing_exchange_is_a_permanent_failure_that_does_not_disturb_other_publishes() throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker(); RabbitMqTransport transport = transport()) {
      broker.startConsuming();

      assertThat(deliver(transport, message("no-such-exchange-" + broker.queue + "/x", "{}")))
          .isInstanceOfSatisfying(DeliveryOutcome.Permanent.class,
              p -> assertThat(p.reason()).contains("does not exist"));
      assertThat(deliver(transport, message(broker.destination(), "{}"))).isEqualTo(DeliveryOutcome.delivered());
    }
  }

  @Test
  void an_exchange_deleted_under_a_running_transport_fails_retryably_then_permanently_and_others_go_on()
      throws Exception {
    try (RabbitMqTestBroker gone = new RabbitMqTestBroker(); RabbitMqTestBroker stays = new RabbitMqTestBroker();
        RabbitMqTransport transport = transport()) {
      stays.startConsuming();
      assertThat(deliver(transport, message(gone.destination(), "{}"))).isEqualTo(DeliveryOutcome.delivered());
      gone.deleteExchange();

      assertThat(deliver(transport, message(gone.destination(), "{}")))
          .as("the channel closes under the publish: its confirm can never come")
          .isInstanceOf(DeliveryOutcome.Retryable.class);
      assertThat(deliver(transport, message(gone.destination(), "{}")))
          .as("checked again, the exchange is known to be missing")
          .isInstanceOf(DeliveryOutcome.Permanent.class);
      assertThat(deliver(transport, message(stays.destination(), "{}"))).isEqualTo(DeliveryOutcome.delivered());
    }
  }

  @Test
  void a_broker_nack_is_a_retryable_failure() throws Exception {
    Map<String, Object> fullAfterOne = Map.of("x-max-length", 1, "x-overflow", "reject-publish");
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker(fullAfterOne); RabbitMqTransport transport = transport()) {
      assertThat(deliver(transport, message(broker.destination(), "first"))).isEqualTo(DeliveryOutcome.delivered());

      assertThat(deliver(transport, message(broker.destination(), "second")))
          .isInstanceOfSatisfying(DeliveryOutcome.Retryable.class, r -> assertThat(r.reason()).contains("nack"));
      assertThat(broker.queueDepth()).isEqualTo(1);
    }
  }

  @Test
  void messages_are_persistent_and_carry_id_content_type_headers_and_timestamp() throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker(); RabbitMqTransport transport = transport()) {
      broker.startConsuming();
      Message message = message(broker.destination(), "{\"order\":1}");

      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());

      RabbitMqTestBroker.Delivery delivery = broker.next(WAIT);
      assertThat(delivery.properties().getDeliveryMode()).isEqualTo(2);
      assertThat(delivery.properties().getMessageId()).isEqualTo(message.id().toString());
      assertThat(delivery.properties().getContentType()).isEqualTo("application/json");
      assertThat(delivery.properties().getTimestamp()).isNotNull();
      assertThat(String.valueOf(delivery.properties().getHeaders().get("traceparent")))
          .isEqualTo(message.headers().get("traceparent"));
    }
  }

  @Test
  void an_address_mapping_can_route_by_ordering_key() throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker();
        RabbitMqTransport transport = RabbitMqTransport.builder().withPort(RabbitMqTestBroker.PORT)
            .withAddressMapping(m -> new AmqpAddress(m.destination(), m.orderingKey().orElseThrow())).build()) {
      broker.startConsuming();
      Message message = Message.builder().withDestination(broker.exchange).withOrderingKey(broker.routingKey)
          .withPayload("keyed").build();

      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());
      assertThat(broker.next(WAIT).properties().getMessageId()).isEqualTo(message.id().toString());
      assertThat(deliver(transport, Message.builder().withDestination(broker.exchange).withPayload("x").build()))
          .as("a mapping that throws refuses the message for good").isInstanceOf(DeliveryOutcome.Permanent.class);
    }
  }

  @Test
  void the_destination_splits_into_exchange_and_routing_key_at_the_first_slash() {
    assertThat(AmqpAddress.parse("orders/created")).isEqualTo(new AmqpAddress("orders", "created"));
    assertThat(AmqpAddress.parse("/jobs")).isEqualTo(new AmqpAddress("", "jobs"));
    assertThat(AmqpAddress.parse("fanout")).isEqualTo(new AmqpAddress("fanout", ""));
    assertThat(AmqpAddress.parse("events/eu/created")).isEqualTo(new AmqpAddress("events", "eu/created"));
  }

  @Test
  void the_properties_form_builds_a_working_transport_and_never_shows_the_password() throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker();
        RabbitMqTransport transport = RabbitMqTransport.fromProperties(Map.of(
            "host", "127.0.0.1", "port", "5672", "virtual-host", "/", "username", "guest", "password", "guest",
            "confirm-timeout", "5s", "recovery-interval", "500ms", "connection-name", "outbox4j-props-test"))) {
      broker.startConsuming();
      assertThat(deliver(transport, message(broker.destination(), "{}"))).isEqualTo(DeliveryOutcome.delivered());
      assertThat(transport.toString()).contains("127.0.0.1:5672").doesNotContain("password");
    }
    try (RabbitMqTransport fromUri = RabbitMqTransport.fromProperties(
        Map.of("uri", "amqp://guest:hunter2@127.0.0.1:5672/%2F"))) {
      assertThat(fromUri.toString()).doesNotContain("hunter2");
    }
    assertThatThrownBy(() -> RabbitMqTransport.fromProperties(Map.of("uri", "http://guest:hunter2@x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("hunter2");
    assertThatThrownBy(() -> RabbitMqTransport.fromProperties(Map.of("hots", "127.0.0.1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hots");
    assertThatThrownBy(() -> RabbitMqTransport.fromProperties(Map.of("port", "seventy")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
  }
}
