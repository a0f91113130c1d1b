package dev.outbox4j.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.TcpProxy;
import io.nats.client.PublishOptions;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.PublishAck;
import io.nats.client.impl.NatsMessage;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** NATS-specific behaviour, against the real JetStream on 127.0.0.1:4222. */
class NatsTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static NatsTransport transport() {
    return NatsTransport.builder().withServer(NatsTestStream.SERVER).build();
  }

  private static Message message(String subject, String text) {
    return Message.builder().withDestination(subject).withPayload(text).withContentType("application/json")
        .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").build();
  }

  private static DeliveryOutcome deliver(NatsTransport transport, Message message) throws Exception {
    return transport.deliver(message).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void the_server_drops_a_second_publish_of_the_same_message_id_inside_the_duplicate_window() throws Exception {
    try (NatsTestStream stream = new NatsTestStream(); NatsTransport transport = transport()) {
      Message message = message(stream.subject(), "{\"order\":7}");

      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());
      assertThat(deliver(transport, message)).as("a duplicate ack still means the stream holds it")
          .isEqualTo(DeliveryOutcome.delivered());

      assertThat(stream.storedCount()).as("messages stored after two publishes of one id").isEqualTo(1);
      // The server's own word: a third publish carrying the same Nats-Msg-Id is acked as a duplicate.
      PublishAck third = stream.jetStream.publishAsync(
          NatsMessage.builder().subject(stream.subject()).data(message.payload()).build(),
          PublishOptions.builder().messageId(message.id().toString()).build()).get(30, TimeUnit.SECONDS);
      assertThat(third.isDuplicate()).isTrue();
      assertThat(third.getSeqno()).isEqualTo(1);
      assertThat(stream.storedCount()).isEqualTo(1);
      PublishAck fresh = stream.jetStream.publishAsync(
          NatsMessage.builder().subject(stream.subject()).data(message.payload()).build(),
          PublishOptions.builder().messageId("another-id").build()).get(30, TimeUnit.SECONDS);
      assertThat(fresh.isDuplicate()).as("a different id is not a duplicate").isFalse();
      assertThat(stream.storedCount()).isEqualTo(2);
    }
  }

  @Test
  void a_subject_no_stream_captures_is_a_permanent_failure_naming_the_subject() throws Exception {
    try (NatsTransport transport = transport()) {
      assertThat(deliver(transport, message("outbox4j.nowhere.at.all", "{}")))
          .isInstanceOfSatisfying(DeliveryOutcome.Permanent.class,
              p -> assertThat(p.reason()).contains("no JetStream stream").contains("outbox4j.nowhere.at.all"));
    }
  }

  @Test
  void a_message_larger_than_the_stream_allows_is_a_permanent_failure() throws Exception {
    try (NatsTestStream stream = new NatsTestStream(config -> config.maximumMessageSize(64));
        NatsTransport transport = transport()) {
      assertThat(deliver(transport, message(stream.subject(), "x".repeat(500))))
          .isInstanceOfSatisfying(DeliveryOutcome.Permanent.class, p -> assertThat(p.reason()).contains("10054"));
    }
  }

  @Test
  void a_full_stream_that_refuses_new_messages_is_a_retryable_failure() throws Exception {
    try (NatsTestStream stream = new NatsTestStream(config -> config.maxMessages(1).discardPolicy(DiscardPolicy.New));
        NatsTransport transport = transport()) {
      assertThat(deliver(transport, message(stream.subject(), "first"))).isEqualTo(DeliveryOutcome.delivered());

      assertThat(deliver(transport, message(stream.subject(), "second")))
          .isInstanceOf(DeliveryOutcome.Retryable.class);
      assertThat(stream.storedCount()).isEqualTo(1);
    }
  }

  @Test
  void a_header_nats_cannot_carry_is_a_permanent_failure() throws Exception {
    try (NatsTestStream stream = new NatsTestStream(); NatsTransport transport = transport()) {
      Message message = message(stream.subject(), "{}").toBuilder().withHeader("bad name", "x").build();

      assertThat(deliver(transport, message)).isInstanceOf(DeliveryOutcome.Permanent.class);
    }
  }

  @Test
  void payload_content_type_and_headers_are_stored_with_the_message() throws Exception {
    try (NatsTestStream stream = new NatsTestStream(); NatsTransport transport = transport()) {
      stream.startConsuming();
      Message message = message(stream.subject(), "{\"order\":1}");

      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());

      io.nats.client.Message stored = stream.next(WAIT);
      assertThat(stored.getData()).isEqualTo(message.payload());
      assertThat(stored.getHeaders().getFirst(NatsTransport.MESSAGE_ID_HEADER)).isEqualTo(message.id().toString());
      assertThat(stored.getHeaders().getFirst("Content-Type")).isEqualTo("application/json");
      assertThat(stored.getHeaders().getFirst("traceparent")).isEqualTo(message.headers().get("traceparent"));
    }
  }

  @Test
  void a_subject_mapping_can_route_messages() throws Exception {
    try (NatsTestStream stream = new NatsTestStream();
        NatsTransport transport = NatsTransport.builder().withServer(NatsTestStream.SERVER)
            .withSubjectMapping(m -> stream.subjectSpace + "." + m.destination()).build()) {
      assertThat(deliver(transport, message("payments", "{}"))).isEqualTo(DeliveryOutcome.delivered());
      assertThat(stream.storedCount()).isEqualTo(1);
    }
  }

  @Test
  void the_properties_form_builds_a_working_transport_and_never_shows_credentials() throws Exception {
    try (NatsTestStream stream = new NatsTestStream();
        NatsTransport transport = NatsTransport.fromProperties(Map.of(
            "servers", NatsTestStream.SERVER, "connection-name", "outbox4j-props-test", "ack-timeout", "5s",
            "reconnect-wait", "250ms", "connection-timeout", "PT3S"))) {
      assertThat(deliver(transport, message(stream.subject(), "{}"))).isEqualTo(DeliveryOutcome.delivered());
      assertThat(transport.toString()).contains("nats://127.0.0.1:4222");
    }
    try (NatsTransport withSecret = NatsTransport.fromProperties(Map.of(
        "servers", "nats://relay:hunter2@127.0.0.1:4222", "token", "tok-secret"))) {
      assertThat(withSecret.toString()).doesNotContain("hunter2").doesNotContain("tok-secret");
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).doesNotContain("hunter2").doesNotContain("tok-secret");
    }
    assertThatThrownBy(() -> NatsTransport.fromProperties(Map.of("server", NatsTestStream.SERVER)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("server");
    assertThatThrownBy(() -> NatsTransport.fromProperties(Map.of("username", "relay")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("password");
    assertThatThrownBy(() -> NatsTransport.fromProperties(Map.of("ack-timeout", "forever")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ack-timeout");
  }

  @Test
  void the_bound_is_the_ack_timeout_and_the_client_neither_reconnects_nor_buffers_on_its_own() {
    try (NatsTransport transport = NatsTransport.builder().withAckTimeout(Duration.ofSeconds(3)).build();
        NatsTransport defaults = NatsTransport.builder().build()) {
      assertThat(transport.maxAnswerTime()).isEqualTo(Duration.ofSeconds(3));
      assertThat(defaults.maxAnswerTime()).isEqualTo(NatsTransport.DEFAULT_ACK_TIMEOUT);
      assertThat(transport.options().getMaxReconnect()).as("no client reconnect: it would resend its queue late")
          .isZero();
      assertThat(transport.options().getReconnectBufferSize()).as("nothing queued while disconnected").isZero();
    }
  }

  @Test
  void a_publish_whose_ack_does_not_come_is_answered_by_the_bound_and_a_fresh_connection_carries_on()
      throws Exception {
    try (NatsTestStream stream = new NatsTestStream();
        TcpProxy proxy = TcpProxy.start("127.0.0.1", NatsTestStream.PORT);
        NatsTransport transport = NatsTransport.builder().withServer("nats://127.0.0.1:" + proxy.port())
            .withAckTimeout(Duration.ofMillis(800)).withReconnectWait(Duration.ofMillis(100)).build()) {
      Message first = Message.builder().withDestination(stream.subject()).withPayload("first").build();
      assertThat(transport.deliver(first).toCompletableFuture().get(30, TimeUnit.SECONDS))
          .isEqualTo(DeliveryOutcome.delivered());

      proxy.stall();
      long start = System.nanoTime();
      DeliveryOutcome silent = transport.deliver(
          Message.builder().withDestination(stream.subject()).withPayload("silent").build())
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      proxy.resume();

      assertThat(silent).isInstanceOf(DeliveryOutcome.Retryable.class);
      assertThat(took).isLessThan(transport.maxAnswerTime().plus(Duration.ofMillis(500)));
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(transport.deliver(Message.builder().withDestination(stream.subject()).withPayload("after")
              .build()).toCompletableFuture().get(10, TimeUnit.SECONDS)).isEqualTo(DeliveryOutcome.delivered()));
    }
  }
}
