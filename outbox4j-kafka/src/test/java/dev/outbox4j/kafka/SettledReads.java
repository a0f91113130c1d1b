package dev.outbox4j.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;

/** Reads a topic of the embedded broker to its end once no transaction on it is open, at either isolation level. */
final class SettledReads {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private SettledReads() {}

  /**
   * Every record of the topic that a consumer of this isolation level reads, once no transaction on it is open any
   * more (its last stable offset has reached its high watermark), up to its end.
   */
  static List<ConsumerRecord<byte[], byte[]>> read(EmbeddedKafka kafka, String topic, String isolation)
      throws Exception {
    List<TopicPartition> partitions;
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka, isolation)) {
      partitions = consumer.partitionsFor(topic, WAIT).stream()
          .map(p -> new TopicPartition(topic, p.partition())).toList();
    }
    Awaitility.await("no open transaction on " + topic).atMost(WAIT).pollInterval(Duration.ofMillis(100))
        .until(() -> offsets(kafka, partitions, IsolationLevel.READ_COMMITTED)
            .equals(offsets(kafka, partitions, IsolationLevel.READ_UNCOMMITTED)));
    Map<TopicPartition, Long> end = offsets(kafka, partitions, IsolationLevel.READ_UNCOMMITTED);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(kafka, isolation)) {
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Awaitility.await("read " + topic + " to its end").atMost(WAIT).pollInterval(Duration.ofMillis(1))
          .until(() -> {
            consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
          });
    }
    return records;
  }

  static Map<TopicPartition, Long> offsets(EmbeddedKafka kafka, List<TopicPartition> partitions,
      IsolationLevel isolation)
      throws Exception {
    Map<TopicPartition, OffsetSpec> latest = partitions.stream()
        .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
    Map<TopicPartition, Long> offsets = new HashMap<>();
    kafka.admin().listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(30, TimeUnit.SECONDS)
        .forEach((partition, info) -> offsets.put(partition, info.offset()));
    return offsets;
  }

  private static KafkaConsumer<byte[], byte[]> consumer(EmbeddedKafka kafka, String isolation) {
    return new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
