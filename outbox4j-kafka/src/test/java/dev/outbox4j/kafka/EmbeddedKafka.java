package dev.outbox4j.kafka;

import dev.outbox4j.testkit.TcpProxy;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.awaitility.Awaitility;

/**
 * A real Kafka broker in this JVM: one KRaft node that is both broker and controller, on random loopback ports, with
 * its logs in a temporary directory deleted at JVM exit.
 *
 * <p>Started once per test JVM by {@link #shared()} (a few seconds) and shared by every test class; each test isolates
 * itself with its own topics. Automatic topic creation is off, so a topic exists only when a test created it.
 *
 * <p>The broker has two client listeners: {@code PLAINTEXT}, reached directly, and {@code PROXIED}, advertised at the
 * address of a {@link TcpProxy} that a test can cut and restore to simulate an outage. Kafka hands a client the
 * addresses of the listener it bootstrapped through, so a client that bootstraps via {@link #proxiedBootstrapServers()}
 * talks to the broker only through the proxy. Two more listeners speak TLS: {@link SecureListeners}.
 *
 * <p>Public because the benchmarks (outbox4j-bench) and the chaos suite (outbox4j-chaos) drive the same broker through
 * this module's test-jar. Thread-safe.
 */
public final class EmbeddedKafka {
  private static EmbeddedKafka shared;

  private final Path directory;
  private final KafkaRaftServer server;
  private final TcpProxy proxy;
  private final String bootstrapServers;
  private final Admin admin;
  private final SecureListeners secure;

  private EmbeddedKafka() throws Exception {
    this(Map.of());
  }

  private EmbeddedKafka(Map<String, String> overrides) throws Exception {
    directory = Files.createTempDirectory("outbox4j-kafka-");
    int[] ports = freePorts(5);
    int brokerPort = ports[0];
    int proxiedPort = ports[1];
    int controllerPort = ports[2];
    secure = new SecureListeners(directory.resolve("certs"), ports[3], ports[4]);
    proxy = TcpProxy.start("127.0.0.1", proxiedPort);
    String logDir = directory.resolve("data").toString();

    Map<String, String> props = new HashMap<>();
    props.put("node.id", "1");
    props.put("process.roles", "broker,controller");
    props.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",PROXIED://127.0.0.1:" + proxiedPort
        + ",CONTROLLER://127.0.0.1:" + controllerPort + "," + secure.listeners());
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort
        + ",PROXIED://127.0.0.1:" + proxy.port() + "," + secure.listeners());
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT,"
        + secure.protocolMap());
    props.putAll(secure.brokerSettings());
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put("log.dirs", logDir);
    props.put("auto.create.topics.enable", "false");
    props.put("num.partitions", "1");
    props.put("default.replication.factor", "1");
    props.put("min.insync.replicas", "1");
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "1");
    // The transactional mode's tests watch the coordinator abort a transaction that outlived its timeout: sweep often.
    props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("num.network.threads", "2");
    props.put("num.io.threads", "2");
    props.put("log.cleaner.dedupe.buffer.size", "2097152");
    props.put("log.segment.bytes", String.valueOf(64 * 1024 * 1024));
    props.putAll(overrides);

    Properties properties = new Properties();
    properties.putAll(props);
    KafkaConfig config = KafkaConfig.fromProps(properties);

    Formatter formatter = new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .setDirectories(List.of(logDir))
        .setMetadataLogDirectory(logDir)
        .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
        .setControllerListenerName("CONTROLLER");
    formatter.run();

    server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    bootstrapServers = "127.0.0.1:" + brokerPort;
    admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
    secure.createUsers(admin);
  }

  /** @return the TLS listeners (SASL over TLS, and one presenting an expired certificate) and their certificates */
  SecureListeners secure() {
    return secure;
  }

  /** @return the broker shared by every test in this JVM, started on first use */
  public static synchronized EmbeddedKafka shared() {
    if (shared == null) {
      try {
        shared = new EmbeddedKafka();
      } catch (Exception e) {
        throw new IllegalStateException("the embedded Kafka broker did not start", e);
      }
      EmbeddedKafka started = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "embedded-kafka-stop"));
    }
    return shared;
  }

  /**
   * A broker of its own, for a test that needs broker settings the shared one does not have; stop it with
   * {@link #stopAlone()}.
   *
   * @param overrides broker settings that replace or add to the shared broker's
   * @return the running broker
   * @throws Exception if it does not start
   */
  static EmbeddedKafka startAlone(Map<String, String> overrides) throws Exception {
    return new EmbeddedKafka(overrides);
  }

  /** Stops a broker of {@link #startAlone} and deletes its data. */
  void stopAlone() {
    stop();
  }

  /** @return {@code host:port} of the broker's direct listener */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** @return {@code host:port} of the proxy in front of the broker's {@code PROXIED} listener */
  public String proxiedBootstrapServers() {
    return "127.0.0.1:" + proxy.port();
  }

  /**
   * @return the proxy a test cuts to simulate an outage; restore it before the test ends, never close it (public for
   *     the chaos suite, whose relays in other processes reach the broker through it)
   */
  public TcpProxy proxy() {
    return proxy;
  }

  /**
   * Creates a topic and waits until the broker serves it: every partition has a leader in the broker's metadata. The
   * controller accepts a new topic before the broker has applied it, and a client that asks in between (a consumer's
   * {@code partitionsFor}) is told the topic has no partitions; on a loaded machine that gap is long enough to hit.
   *
   * @param name the topic
   * @param partitions how many partitions
   */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /**
   * Creates a topic with topic settings and waits until the broker serves it (see {@link #createTopic(String, int)}).
   *
   * @param name the topic
   * @param partitions how many partitions
   * @param configs topic settings, such as {@code max.message.bytes}
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    try {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs))).all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
    Awaitility.await("topic " + name + " served with " + partitions + " partitions").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
        .until(() -> admin.describeTopics(List.of(name)).allTopicNames().get(5, TimeUnit.SECONDS).get(name)
            .partitions().stream().filter(partition -> partition.leader() != null).count() == partitions);
  }

  /**
   * @param topic an existing topic
   * @return a consumer assigned to every partition of the topic, reading from the start; the caller closes it
   */
  public KafkaConsumer<byte[], byte[]> consumerFromStart(String topic) {
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000"),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30));
    List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    consumer.assign(assigned);
    consumer.seekToBeginning(assigned);
    return consumer;
  }

  /**
   * Deletes a topic and waits until the broker accepted the deletion.
   *
   * @param name the topic
   */
  public void deleteTopic(String name) {
    try {
      admin.deleteTopics(List.of(name)).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot delete topic " + name, e);
    }
  }

  /** @return the broker's admin client, shared; do not close it */
  Admin admin() {
    return admin;
  }

  /** @return a loopback port where nothing listens (a free port, released again) */
  static int closedPort() {
    return freePorts(1)[0];
  }

  /** @return the names of the topics that exist, for diagnostics */
  Set<String> topics() {
    try {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot list topics", e);
    }
  }

  private void stop() {
    admin.close(Duration.ofSeconds(5));
    server.shutdown();
    server.awaitShutdown();
    proxy.close();
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // best effort: the directory is under the system temp directory
    }
  }

  /**
   * Distinct free loopback ports: every socket stays open until all are chosen. Taken one at a time, a port closed
   * again could be handed out twice (seen: the broker refused two listeners on one port).
   */
  private static int[] freePorts(int count) {
    ServerSocket[] sockets = new ServerSocket[count];
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (ServerSocket socket : sockets) {
        if (socket != null) {
          try {
            socket.close();
          } catch (IOException ignored) {
            // the port is free again either way once this JVM no longer holds it
          }
        }
      }
    }
  }
}
