package dev.outbox4j.kafka;

import dev.outbox4j.OutboxException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates the clients of the transactional mode from the transport's producer settings, so that one configuration
 * (bootstrap servers, TLS, SASL, passthrough settings) reaches all of them: the pooled transactional producers, the
 * admin client that creates and checks the progress topic, and the {@code read_committed} consumers that read it. The
 * admin client and the consumers get only the settings their own clients know.
 *
 * <p>Stateless and thread-safe.
 */
final class TransactionalClients {
  private TransactionalClients() {}

  /**
   * @param settings the transactional settings
   * @param producerConfig the transport's producer settings (without a transactional id)
   * @param clientId the transport's client id, which every client's id starts with
   * @param records the record layout
   * @param classifier the failure classification
   * @param requestTimeout the bound on each admin call
   * @param closeTimeout how long closing waits for running batches
   * @param clock the relay's time
   * @return the lane; its clients connect lazily
   * @throws OutboxException if the admin client cannot be created
   */
  static TransactionalLane lane(KafkaTransactions settings, Map<String, Object> producerConfig, String clientId,
      KafkaRecords records, KafkaFailureClassifier classifier, Duration requestTimeout, Duration closeTimeout,
      Clock clock) {
    Admin admin;
    try {
      admin = Admin.create(only(AdminClientConfig.configNames(), producerConfig, clientId + "-admin"));
    } catch (RuntimeException e) {
      throw new OutboxException("cannot create the Kafka admin client: " + KafkaFailureClassifier.describe(e), e);
    }
    Map<String, Object> consumerConfig = only(ConsumerConfig.configNames(), producerConfig, clientId);
    consumerConfig.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumerConfig.remove(ConsumerConfig.GROUP_ID_CONFIG);
    ProgressLog progress = new ProgressLog(settings, admin, suffix -> consumer(consumerConfig, clientId + "-" + suffix),
        requestTimeout, clock);
    return new TransactionalLane(settings, records, classifier, progress, admin,
        transactionalId -> producer(producerConfig, settings, clientId, transactionalId), clock, closeTimeout);
  }

  private static Map<String, Object> only(Set<String> names, Map<String, Object> config, String clientId) {
    Map<String, Object> kept = new HashMap<>();
    config.forEach((name, value) -> {
      if (names.contains(name)) {
        kept.put(name, value);
      }
    });
    kept.put(ProducerConfig.CLIENT_ID_CONFIG, clientId); // the same name for every client
    return kept;
  }

  private static Consumer<byte[], byte[]> consumer(Map<String, Object> config, String clientId) {
    Map<String, Object> settings = new HashMap<>(config);
    settings.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    return new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static Producer<byte[], byte[]> producer(Map<String, Object> config, KafkaTransactions settings,
      String clientId, String transactionalId) {
    Map<String, Object> transactional = new HashMap<>(config);
    transactional.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    transactional.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Math.toIntExact(settings.timeout().toMillis()));
    transactional.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-" + transactionalId);
    return new KafkaProducer<>(transactional, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
