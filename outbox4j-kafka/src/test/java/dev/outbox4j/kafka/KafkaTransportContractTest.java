package dev.outbox4j.kafka;

import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.TransportContract;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

/** The transport contract against a real in-process KRaft broker. */
class KafkaTransportContractTest extends TransportContract {
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final Deque<ConsumerRecord<byte[], byte[]>> buffered = new ArrayDeque<>();
  private @Nullable KafkaConsumer<byte[], byte[]> consumer;

  @Override
  protected Transport newTransport() {
    return KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers()).build();
  }

  @Override
  protected String prepareDestination() {
    String topic = "contract-" + UUID.randomUUID();
    kafka.createTopic(topic, 3);
    consumer = kafka.consumerFromStart(topic);
    return topic;
  }

  @Override
  protected Optional<Received> receive(Duration timeout) {
    KafkaConsumer<byte[], byte[]> reader = consumer;
    if (reader == null) {
      throw new IllegalStateException("no destination prepared");
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (buffered.isEmpty() && System.nanoTime() < deadline) {
      reader.poll(Duration.ofMillis(200)).forEach(buffered::add);
    }
    ConsumerRecord<byte[], byte[]> record = buffered.poll();
    return Optional.ofNullable(record).map(KafkaTransportContractTest::toReceived);
  }

  static Received toReceived(ConsumerRecord<byte[], byte[]> record) {
    Map<String, String> headers = new LinkedHashMap<>();
    String messageId = null;
    for (Header header : record.headers()) {
      String value = new String(header.value(), StandardCharsets.UTF_8);
      if (header.key().equals(KafkaTransport.DEFAULT_MESSAGE_ID_HEADER)) {
        messageId = value;
      } else {
        headers.put(header.key(), value);
      }
    }
    String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
    return new Received(record.value(), headers, messageId, key);
  }

  /** A name Kafka's topic rules refuse (a space and a '!'): no retry can make it valid. */
  @Override
  protected String unroutableDestination() {
    return "not a valid topic!";
  }

  @Override
  protected Transport unreachableTransport() {
    return KafkaTransport.builder()
        .withBootstrapServers("127.0.0.1:" + EmbeddedKafka.closedPort())
        .withMaxBlock(Duration.ofSeconds(1))
        .withRequestTimeout(Duration.ofSeconds(1))
        .withDeliveryTimeout(Duration.ofSeconds(2))
        .build();
  }

  @Override
  protected void cleanUpDestination() {
    if (consumer != null) {
      consumer.close();
      consumer = null;
    }
    buffered.clear();
  }
}
