package dev.outbox4j.bench;

import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.kafka.KafkaTransactions;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.spi.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka for the broker scenarios: the real in-process KRaft broker of outbox4j-kafka's tests ({@link EmbeddedKafka},
 * started once per JVM, so its CPU counts as this JVM's), a fresh topic of {@value #PARTITIONS} partitions per
 * scenario. Both sides publish with an idempotent producer, {@code acks=all}, the transport's default linger, and
 * count a message only once its send callback reported success.
 */
final class KafkaBenchBroker implements BenchBroker {
  static final int PARTITIONS = 8;

  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final String topic = "outbox4j-bench-" + UUID.randomUUID();
  private final boolean transactional;
  private long purgedAt;

  /** The idempotent (at-least-once) transport. */
  KafkaBenchBroker() {
    this(false);
  }

  /** @param transactional whether the relay's transport runs each batch as one Kafka transaction */
  KafkaBenchBroker(boolean transactional) {
    this.transactional = transactional;
    kafka.createTopic(topic, PARTITIONS);
  }

  /** @return the scenario's topic */
  String topic() {
    return topic;
  }

  @Override
  public String name() {
    return transactional ? "kafka-tx" : "kafka";
  }

  @Override
  public String describe() {
    return "Kafka (in-process KRaft broker, " + PARTITIONS + " partitions), "
        + (transactional ? "transactional mode (a transaction per batch, runs of a key)" : "idempotent producer")
        + ", acks=all";
  }

  @Override
  public Transport transport() {
    KafkaTransport.Builder builder = KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withTopicMapping(m -> topic);
    if (transactional) {
      builder.withTransactions(KafkaTransactions.builder().withProgressTopic(topic + "-progress").build());
    }
    return builder.build();
  }

  @Override
  public Publisher publisher() {
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
        ProducerConfig.CLIENT_ID_CONFIG, "outbox4j-bench-baseline",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.LINGER_MS_CONFIG, (int) KafkaTransport.DEFAULT_LINGER.toMillis()),
        new ByteArraySerializer(), new ByteArraySerializer());
    return new Publisher() {
      @Override
      public void publishAll(List<Row> rows) throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>(rows.size());
        for (Row row : rows) {
          byte[] key = row.orderingKey() == null ? null : row.orderingKey().getBytes(StandardCharsets.UTF_8);
          List<Header> headers = List.of(
              new RecordHeader(KafkaTransport.DEFAULT_CONTENT_TYPE_HEADER,
                  row.contentType().getBytes(StandardCharsets.UTF_8)),
              new RecordHeader(KafkaTransport.DEFAULT_MESSAGE_ID_HEADER, row.id().getBytes(StandardCharsets.UTF_8)));
          sent.add(producer.send(new ProducerRecord<>(topic, null, null, key, row.payload(), headers)));
        }
        for (Future<RecordMetadata> confirm : sent) {
          confirm.get(30, TimeUnit.SECONDS);
        }
      }

      @Override
      public void close() {
        producer.close(Duration.ofSeconds(10));
      }
    };
  }

  /** Kafka has no purge: remembers how many records the topic holds, so {@link #stored()} counts from here. */
  @Override
  public void purge() {
    purgedAt = records();
  }

  @Override
  public long stored() {
    return records() - purgedAt;
  }

  private long records() {
    try (KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      return consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30)).values().stream()
          .mapToLong(Long::longValue).sum();
    }
  }

  @Override
  public void close() {
    kafka.deleteTopic(topic);
    if (transactional) {
      try {
        kafka.deleteTopic(topic + "-progress");
      } catch (IllegalStateException e) {
        // the transport creates it when it first runs: a row left out by --rows never did
        if (!(e.getCause() instanceof ExecutionException failed
            && failed.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
      }
    }
  }
}
