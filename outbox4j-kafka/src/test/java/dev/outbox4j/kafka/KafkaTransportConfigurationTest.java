package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/** Configuration (builder and properties form), header mapping and failure classification beyond the contract. */
class KafkaTransportConfigurationTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  private static DeliveryOutcome deliver(KafkaTransport transport, Message message) throws Exception {
    return transport.deliver(message).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(KafkaConsumer<byte[], byte[]> consumer, int count) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (records.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    return records;
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void the_properties_form_configures_a_working_transport_with_a_topic_prefix_and_passthrough_settings()
      throws Exception {
    String topic = "props-" + UUID.randomUUID();
    kafka.createTopic("orders." + topic, 1);
    try (KafkaTransport transport = KafkaTransport.fromProperties(Map.of(
            "bootstrap.servers", kafka.bootstrapServers(),
            "client.id", "relay-7",
            "topic.prefix", "orders.",
            "request.timeout", "3s",
            "delivery.timeout", "PT6S",
            "max.block", "2000ms",
            "linger", "1ms",
            "header.message-id", "x-id",
            "kafka.compression.type", "gzip"));
        KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart("orders." + topic)) {
      Message message = Message.builder().withDestination(topic).withOrderingKey("customer-1")
          .withPayload("hello").withContentType("text/plain").build();

      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());

      List<ConsumerRecord<byte[], byte[]>> records = readAll(consumer, 1);
      assertThat(records).hasSize(1);
      ConsumerRecord<byte[], byte[]> record = records.get(0);
      assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("customer-1");
      assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("hello");
      assertThat(header(record, "x-id")).isEqualTo(message.id().toString());
      assertThat(header(record, "content-type")).isEqualTo("text/plain");
      assertThat(record.headers().lastHeader("message-id")).isNull();
    }
  }

  @Test
  void a_message_header_cannot_forge_the_id_or_content_type_header() throws Exception {
    String topic = "forge-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers()).build();
        KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      Message message = Message.builder().withDestination(topic).withPayload(new byte[0])
          .withHeader("message-id", "forged").withHeader("content-type", "forged/too").withHeader("b3", "1").build();

      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());

      ConsumerRecord<byte[], byte[]> record = readAll(consumer, 1).get(0);
      assertThat(record.headers().headers("message-id")).hasSize(1);
      assertThat(header(record, "message-id")).isEqualTo(message.id().toString());
      assertThat(header(record, "content-type")).isEqualTo(Message.DEFAULT_CONTENT_TYPE);
      assertThat(header(record, "b3")).isEqualTo("1");
      assertThat(record.key()).as("no ordering key, no record key").isNull();
      assertThat(record.value()).isEmpty();
    }
  }

  @Test
  void a_record_larger_than_the_producer_accepts_is_a_permanent_failure() throws Exception {
    String topic = "large-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withProducerProperty("max.request.size", "2048").build()) {
      Message message = Message.builder().withDestination(topic).withPayload(new byte[4096]).build();

      assertThat(deliver(transport, message)).isInstanceOf(DeliveryOutcome.Permanent.class)
          .asString().contains("RecordTooLargeException");
    }
  }

  @Test
  void a_missing_topic_is_retryable_by_default_and_permanent_when_configured() throws Exception {
    Message message = Message.builder().withDestination("absent-" + UUID.randomUUID()).withPayload("x").build();
    KafkaTransport.Builder builder = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withMaxBlock(Duration.ofSeconds(1));

    try (KafkaTransport lenient = builder.build()) {
      assertThat(deliver(lenient, message)).isInstanceOf(DeliveryOutcome.Retryable.class)
          .asString().contains("topic does not exist");
    }
    try (KafkaTransport strict = builder.withMissingTopicPermanent(true).build()) {
      assertThat(deliver(strict, message)).isInstanceOf(DeliveryOutcome.Permanent.class)
          .asString().contains("topic does not exist");
    }
  }

  @Test
  void after_a_send_found_no_metadata_the_same_topic_fails_fast_for_one_max_block() throws Exception {
    SettableClock clock = SettableClock.atFixedStart();
    Message message = Message.builder().withDestination("absent-" + UUID.randomUUID()).withPayload("x").build();
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withMaxBlock(Duration.ofSeconds(1)).withClock(clock).build()) {
      DeliveryOutcome first = deliver(transport, message);
      DeliveryOutcome second = deliver(transport, message);
      clock.advance(Duration.ofSeconds(1));
      DeliveryOutcome third = deliver(transport, message);

      assertThat(first).isInstanceOf(DeliveryOutcome.Retryable.class).asString().doesNotContain("not sent");
      assertThat(second).isInstanceOf(DeliveryOutcome.Retryable.class).asString().contains("not sent");
      assertThat(third).as("after max.block the producer is asked again")
          .isInstanceOf(DeliveryOutcome.Retryable.class).asString().doesNotContain("not sent");
    }
  }

  @Test
  void a_topic_mapping_that_gives_no_topic_is_a_permanent_failure() throws Exception {
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withTopicMapping(message -> " ").build()) {
      Message message = Message.builder().withDestination("anything").withPayload("x").build();

      assertThat(deliver(transport, message)).isInstanceOf(DeliveryOutcome.Permanent.class);
    }
  }

  @Test
  void unknown_property_keys_are_rejected_by_name_without_echoing_values() {
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of(
            "bootstrap.servers", "127.0.0.1:9", "sasl.jaas.config", "password=\"hunter2\"")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sasl.jaas.config")
        .hasMessageContaining("kafka.")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void settings_the_transport_owns_cannot_be_overridden_by_passthrough() {
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of(
            "bootstrap.servers", "127.0.0.1:9", "kafka.acks", "1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks");
    assertThatThrownBy(() -> KafkaTransport.builder().withBootstrapServers("127.0.0.1:9")
            .withProducerProperty("enable.idempotence", "false").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enable.idempotence");
  }

  @Test
  void out_of_range_options_are_rejected_by_name() {
    assertThatThrownBy(() -> KafkaTransport.builder().build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bootstrapServers");
    assertThatThrownBy(() -> KafkaTransport.builder().withBootstrapServers("127.0.0.1:9")
            .withRequestTimeout(Duration.ofSeconds(10)).withDeliveryTimeout(Duration.ofSeconds(5)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deliveryTimeout");
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of("bootstrap.servers", "127.0.0.1:9",
            "max.block", "soon")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max.block");
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of("client.id", "x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bootstrapServers");
  }

  @Test
  void secrets_passed_through_never_appear_in_the_transport_description() {
    try (KafkaTransport transport = KafkaTransport.fromProperties(Map.of(
        "bootstrap.servers", kafka.bootstrapServers(),
        "kafka.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\";"))) {
      assertThat(transport.toString()).contains(kafka.bootstrapServers()).doesNotContain("hunter2");
    }
  }

  @Test
  void the_bound_is_max_block_plus_delivery_timeout_and_the_producer_gets_exactly_those_settings() {
    KafkaTransport.Builder builder = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withMaxBlock(Duration.ofSeconds(2)).withRequestTimeout(Duration.ofSeconds(3))
        .withDeliveryTimeout(Duration.ofSeconds(6)).withLinger(Duration.ofMillis(1));

    Map<String, Object> config = builder.producerConfig();
    try (KafkaTransport transport = builder.build()) {
      assertThat(transport.maxAnswerTime()).isEqualTo(Duration.ofSeconds(8));
    }
    assertThat(config).containsEntry("max.block.ms", 2_000L).containsEntry("request.timeout.ms", 3_000)
        .containsEntry("delivery.timeout.ms", 6_000).containsEntry("linger.ms", 1)
        .containsEntry("enable.idempotence", "true").containsEntry("acks", "all");
    try (KafkaTransport defaults = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers()).build()) {
      assertThat(defaults.maxAnswerTime()).isEqualTo(KafkaTransport.DEFAULT_MAX_BLOCK
          .plus(KafkaTransport.DEFAULT_DELIVERY_TIMEOUT));
    }
  }

  @Test
  void a_broker_that_reads_nothing_is_answered_by_the_bound_and_the_cluster_is_reported_unavailable()
      throws Exception {
    String topic = "stalled-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    Message message = Message.builder().withDestination(topic).withOrderingKey("k").withPayload("x").build();
    try (KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(kafka.proxiedBootstrapServers())
        .withMaxBlock(Duration.ofSeconds(1)).withRequestTimeout(Duration.ofSeconds(1))
        .withDeliveryTimeout(Duration.ofSeconds(2)).build()) {
      assertThat(deliver(transport, message)).isEqualTo(DeliveryOutcome.delivered());
      kafka.proxy().stall();
      try {
        long start = System.nanoTime();
        DeliveryOutcome outcome = deliver(transport, message);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
            retryable -> assertThat(retryable.transportUnavailable()).isTrue());
        assertThat(took).isLessThan(transport.maxAnswerTime().plus(Duration.ofMillis(500)));
      } finally {
        kafka.proxy().resume();
      }
    }
  }

  @Test
  void a_passthrough_timing_setting_that_would_move_the_bound_is_refused_naming_the_option_to_use() {
    for (String setting : List.of("delivery.timeout.ms", "max.block.ms", "request.timeout.ms", "linger.ms")) {
      assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of(
              "bootstrap.servers", "127.0.0.1:9", "kafka." + setting, "60000")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(setting).hasMessageContaining("maxAnswerTime");
    }
    assertThatThrownBy(() -> KafkaTransport.builder().withBootstrapServers("127.0.0.1:9")
            .withRequestTimeout(Duration.ofSeconds(5)).withLinger(Duration.ofSeconds(1))
            .withDeliveryTimeout(Duration.ofSeconds(5)).build())
        .as("a request still in flight when the record expires could land after the bound")
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout + linger");
  }

  @Test
  void durations_accept_units_bare_milliseconds_and_iso_8601() {
    assertThat(PropertyValues.duration("k", "250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(PropertyValues.duration("k", "5s")).isEqualTo(Duration.ofSeconds(5));
    assertThat(PropertyValues.duration("k", "2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(PropertyValues.duration("k", "1500")).isEqualTo(Duration.ofMillis(1500));
    assertThat(PropertyValues.duration("k", "PT3S")).isEqualTo(Duration.ofSeconds(3));
  }
}
