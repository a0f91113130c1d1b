package dev.outbox4j.chaos;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.testkit.TcpProxy;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * The far end of the relays, as the suite's orchestrator sees it: the message ids that arrived, in arrival order,
 * duplicates included. Also names the port the relays must connect to (behind the suite's {@code TcpProxy}) and what
 * they pass to their transport.
 */
interface ChaosConsumer extends AutoCloseable {
  /** @return {@code ledger}, {@code rabbitmq} or {@code kafka}: the relay's transport */
  String transport();

  /** @return how the run's label names this consumer; its transport unless said otherwise */
  default String label() {
    return transport();
  }

  /** @return the destination the writers address */
  String destination();

  /** @return the port on 127.0.0.1 of the service the relays deliver to (the proxy forwards there) */
  int servicePort();

  /**
   * @param proxyPort the proxy's port
   * @return the relay's transport arguments, connecting through the proxy
   */
  List<String> relayArguments(int proxyPort);

  /** @return every message id received so far, in arrival order */
  List<UUID> received();

  /**
   * @return every message's arrival times (the machine clock), duplicates included
   * @throws UnsupportedOperationException where the consumer keeps no arrival times (only the ledger does)
   */
  default Map<UUID, List<java.time.Instant>> arrivalTimes() {
    throw new UnsupportedOperationException(transport() + " keeps no arrival times");
  }

  /**
   * @return the proxy in front of this consumer's service, when the service needs one of its own: a broker that
   *     advertises its listeners' addresses (Kafka) must advertise the proxy's, so a proxy the run starts in front of
   *     it would be bypassed after the first request. The run cuts this one for the outage and leaves it open.
   *     {@code null} (the default): the run starts a proxy in front of {@link #servicePort()}
   */
  default @Nullable TcpProxy ownProxy() {
    return null;
  }

  /**
   * @return copies the broker holds that a committed-data reader never sees (aborted transactions'), for the summary;
   *     -1 (the default) where there is no such thing
   */
  default long abortedCopies() {
    return -1;
  }

  @Override
  void close();

  /**
   * The in-process transport's consumer: each relay's callback inserts the message into {@code chaos_received} in a
   * database of its own on the shared PostgreSQL service (this JVM's {@link RunDatabases} database); a
   * {@code BIGSERIAL} numbers the arrivals.
   */
  final class Ledger implements ChaosConsumer {
    private final String url = RunDatabases.postgresUrl();

    Ledger() {
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement()) {
        statement.execute("DROP TABLE IF EXISTS chaos_received");
        statement.execute("CREATE TABLE chaos_received (seq BIGSERIAL PRIMARY KEY, message_id VARCHAR(36) NOT NULL,"
            + " ordering_key VARCHAR(255) NOT NULL, relay VARCHAR(64) NOT NULL,"
            + " received_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the consumer ledger", e);
      }
    }

    @Override
    public String transport() {
      return "ledger";
    }

    @Override
    public String destination() {
      return "chaos-ledger";
    }

    @Override
    public int servicePort() {
      return 5432;
    }

    @Override
    public List<String> relayArguments(int proxyPort) {
      return List.of("ledgerUrl=jdbc:postgresql://127.0.0.1:" + proxyPort + "/" + RunDatabases.name()
          + "?user=postgres&connectTimeout=2&socketTimeout=10");
    }

    @Override
    public List<UUID> received() {
      List<UUID> ids = new ArrayList<>();
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT message_id FROM chaos_received ORDER BY seq")) {
        while (rows.next()) {
          ids.add(UUID.fromString(rows.getString(1)));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return ids;
    }

    /** @return arrival times from {@code received_at}: the shared server's {@code clock_timestamp()} at the insert */
    @Override
    public Map<UUID, List<java.time.Instant>> arrivalTimes() {
      Map<UUID, List<java.time.Instant>> times = new java.util.HashMap<>();
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT message_id, received_at FROM chaos_received ORDER BY seq")) {
        while (rows.next()) {
          times.computeIfAbsent(UUID.fromString(rows.getString(1)), id -> new ArrayList<>())
              .add(rows.getTimestamp(2).toInstant());
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return times;
    }

    @Override
    public void close() {}
  }

  /**
   * The real broker: a queue of its own on the shared RabbitMQ (unique exchange and queue names per run), consumed
   * by this JVM directly (not through the proxy), auto-acknowledged; the arrival order is the queue's order.
   */
  final class Rabbit implements ChaosConsumer {
    private final String exchange = "chaos-" + UUID.randomUUID();
    private final String queue = "chaos-" + UUID.randomUUID();
    private final com.rabbitmq.client.Connection connection;
    private final List<UUID> ids = new ArrayList<>();
    /** Arrival times (this JVM's clock), parallel to {@link #ids}. */
    private final List<java.time.Instant> times = new ArrayList<>();

    Rabbit() {
      try {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(5672);
        connection = factory.newConnection("outbox4j-chaos-consumer");
        Channel channel = connection.createChannel();
        channel.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false, false, null);
        channel.queueDeclare(queue, false, false, false, null);
        channel.queueBind(queue, exchange, "chaos");
        channel.basicConsume(queue, true, (tag, delivery) -> {
          synchronized (ids) {
            ids.add(UUID.fromString(delivery.getProperties().getMessageId()));
            times.add(java.time.Instant.now());
          }
        }, tag -> {});
      } catch (IOException | TimeoutException e) {
        throw new IllegalStateException("cannot set up the RabbitMQ consumer", e);
      }
    }

    @Override
    public String transport() {
      return "rabbitmq";
    }

    @Override
    public String destination() {
      return exchange + "/chaos";
    }

    @Override
    public int servicePort() {
      return 5672;
    }

    @Override
    public List<String> relayArguments(int proxyPort) {
      return List.of("brokerPort=" + proxyPort);
    }

    @Override
    public List<UUID> received() {
      synchronized (ids) {
        return List.copyOf(ids);
      }
    }

    /** @return arrival times as this JVM's consumer saw each delivery, duplicates included */
    @Override
    public Map<UUID, List<java.time.Instant>> arrivalTimes() {
      Map<UUID, List<java.time.Instant>> arrivals = new java.util.HashMap<>();
      synchronized (ids) {
        for (int i = 0; i < ids.size(); i++) {
          arrivals.computeIfAbsent(ids.get(i), id -> new ArrayList<>()).add(times.get(i));
        }
      }
      return arrivals;
    }

    @Override
    public void close() {
      try (Channel channel = connection.createChannel()) {
        channel.queueDelete(queue);
        channel.exchangeDelete(exchange);
      } catch (IOException | TimeoutException | RuntimeException e) {
        System.err.println("chaos: could not delete " + queue + ": " + e);
      } finally {
        try {
          connection.close();
        } catch (IOException | RuntimeException e) {
          // already closed
        }
      }
    }
  }

  /**
   * Kafka, the in-process KRaft broker ({@link EmbeddedKafka}, shared by the suite's JVM): a topic of its own per run
   * (three partitions, keyed by ordering key), which the relays reach through the broker's proxied listener and its
   * proxy ({@link #ownProxy()}). Plain (idempotent, at least once) or transactional: each relay batch one Kafka
   * transaction, with a progress topic of its own per run.
   *
   * <p>The judge is a {@code read_committed} consumer: {@link #received()} is the message ids (the transport's id
   * header) in arrival order per partition, the partitions one after another, which keeps every key's order since a
   * key lives in one partition. A second, {@code read_uncommitted} consumer counts every copy the log holds;
   * {@link #abortedCopies()} is what it saw beyond the judge: copies in transactions that were aborted (or never
   * committed). Not thread-safe; the orchestrator calls it from one thread.
   */
  final class Kafka implements ChaosConsumer {
    /** The transactional bounds of the relays (B, T, skew); the abort sweep is the broker's, read from it. */
    static final Duration START_BOUND = Duration.ofSeconds(4);
    static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(3);
    static final Duration CLOCK_SKEW = Duration.ofSeconds(1);
    private static final String SWEEP = "transaction.abort.timed.out.transaction.cleanup.interval.ms";
    private static final Duration CATCH_UP = Duration.ofSeconds(30);

    private final EmbeddedKafka broker = EmbeddedKafka.shared();
    private final boolean transactional;
    private final String run = UUID.randomUUID().toString();
    private final String topic = "chaos-" + run;
    private final Duration abortSweep;
    private final KafkaConsumer<byte[], byte[]> committed;
    private final KafkaConsumer<byte[], byte[]> uncommitted;
    private final Map<Integer, List<UUID>> arrivals = new TreeMap<>();
    private long committedCopies;
    private long allCopies;

    /** @param transactional whether the relays send each batch as one Kafka transaction */
    Kafka(boolean transactional) {
      this.transactional = transactional;
      broker.createTopic(topic, 3);
      this.abortSweep = brokerAbortSweep();
      this.committed = broker.consumerFromStart(topic);
      this.uncommitted = new KafkaConsumer<>(Map.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted",
          ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000"),
          new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> partitions = committed.assignment().stream().toList();
      uncommitted.assign(partitions);
      uncommitted.seekToBeginning(partitions);
    }

    /**
     * Whether this build's {@link KafkaTransport} has the transactional mode: {@code transactions.enabled} is a key
     * of {@link KafkaTransport#fromProperties} (set to {@code false} here, so nothing is started).
     *
     * @return {@code false} while the transport rejects the key as unknown
     */
    static boolean transactionsSupported() {
      try (KafkaTransport probe = KafkaTransport.fromProperties(Map.of("bootstrap.servers", "127.0.0.1:9",
          "transactions.enabled", "false"))) {
        return true;
      } catch (IllegalArgumentException e) {
        return false;
      }
    }

    /** The broker's sweep for timed-out transactions, which the relays' bound must assume. */
    private Duration brokerAbortSweep() {
      try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
        ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
        Config config = admin.describeConfigs(List.of(node)).all().get(30, TimeUnit.SECONDS).get(node);
        return Duration.ofMillis(Long.parseLong(config.get(SWEEP).value()));
      } catch (Exception e) {
        throw new IllegalStateException("cannot read the broker's " + SWEEP, e);
      }
    }

    /** @return the broker's abort sweep, which the relays are told */
    Duration abortSweep() {
      return abortSweep;
    }

    /** @return whether the relays send transactionally */
    boolean transactional() {
      return transactional;
    }

    @Override
    public String transport() {
      return "kafka";
    }

    @Override
    public String label() {
      return transactional ? "kafka-transactional" : "kafka-idempotent";
    }

    @Override
    public String destination() {
      return topic;
    }

    @Override
    public int servicePort() {
      return broker.proxy().port();
    }

    @Override
    public TcpProxy ownProxy() {
      return broker.proxy();
    }

    @Override
    public List<String> relayArguments(int proxyPort) {
      List<String> arguments = new ArrayList<>(List.of("bootstrap=" + broker.proxiedBootstrapServers(),
          "transactions=" + transactional));
      if (transactional) {
        arguments.addAll(List.of("transactionalIdPrefix=chaos-" + run, "progressTopic=chaos-progress-" + run,
            "startBound=" + START_BOUND.toMillis(), "transactionTimeout=" + TRANSACTION_TIMEOUT.toMillis(),
            "abortSweep=" + abortSweep.toMillis(), "clockSkew=" + CLOCK_SKEW.toMillis()));
      }
      return arguments;
    }

    /** Reads, as the judge, up to the last stable offset as of this call; copies also counted uncommitted. */
    @Override
    public List<UUID> received() {
      committedCopies += catchUp(committed, record -> arrivals
          .computeIfAbsent(record.partition(), partition -> new ArrayList<>()).add(messageId(record)));
      List<UUID> ids = new ArrayList<>();
      arrivals.values().forEach(ids::addAll);
      return ids;
    }

    /** @return copies beyond what the judge saw, read uncommitted up to the high watermark as of this call */
    @Override
    public long abortedCopies() {
      received();
      allCopies += catchUp(uncommitted, record -> {});
      return allCopies - committedCopies;
    }

    /**
     * Polls until the consumer's position reaches the end offsets of the moment of the call (for a read_committed
     * consumer, the last stable offset), bounded.
     *
     * @return records read
     */
    private static long catchUp(KafkaConsumer<byte[], byte[]> consumer,
        java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> each) {
      Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(10));
      long deadline = System.nanoTime() + CATCH_UP.toNanos();
      long read = 0;
      while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the Kafka consumer did not reach " + end + " within " + CATCH_UP);
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          each.accept(record);
          read++;
        }
      }
      return read;
    }

    private static UUID messageId(ConsumerRecord<byte[], byte[]> record) {
      Header id = record.headers().lastHeader(KafkaTransport.DEFAULT_MESSAGE_ID_HEADER);
      if (id == null) {
        throw new IllegalStateException("a record without the message id header at " + record.topic() + "-"
            + record.partition() + "@" + record.offset());
      }
      return UUID.fromString(new String(id.value(), StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
      committed.close();
      uncommitted.close();
      broker.deleteTopic(topic);
    }
  }
}
