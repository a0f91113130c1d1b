package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.spi.QuarantineQuery;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connector on a real distributed Connect cluster (two workers in this JVM) with exactly-once source support,
 * against the in-process broker and a PostgreSQL outbox: every entry arrives once to a {@code read_committed}
 * consumer, in key order, with two tasks sharing the outbox; a record Kafka would refuse quarantines only its entry. The
 * tasks' metrics (JMX, through Connect's plugin metrics) count what happened.
 */
class OutboxSourceConnectorExactlyOnceTest {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static ConnectWorkers workers;

  @BeforeAll
  static void startWorkers() {
    workers = ConnectWorkers.start(KAFKA, 2, true);
  }

  @AfterAll
  static void stopWorkers() {
    workers.close();
  }

  static Map<String, String> connectorConfig(String tablePrefix, String topic, int tasks) {
    Map<String, String> config = new HashMap<>();
    config.put("connector.class", OutboxSourceConnector.class.getName());
    config.put("tasks.max", Integer.toString(tasks));
    config.put("exactly.once.support", "required");
    config.put("transaction.boundary", "poll");
    config.put(OutboxSourceConfig.JDBC_URL, RunDatabases.postgresUrl());
    config.put(OutboxSourceConfig.TABLE_PREFIX, tablePrefix);
    config.put(OutboxSourceConfig.TOPIC_PATTERN, topic);
    config.put(OutboxSourceConfig.BATCH_SIZE, "200");
    config.put(OutboxSourceConfig.POLL_INTERVAL_MS, "50");
    return config;
  }

  /**
   * @return {@link #connectorConfig} with the shortest lease the transaction timeout allows (10 s, lease 40 s): what a
   *     killed, cut-off or frozen task held comes back after 40 s
   */
  static Map<String, String> shortLeaseConfig(String tablePrefix, String topic, int tasks) {
    Map<String, String> config = connectorConfig(tablePrefix, topic, tasks);
    config.put("producer.override.transaction.timeout.ms", "10000");
    config.put(OutboxSourceConfig.LEASE_MS, "40000");
    return config;
  }

  /**
   * Keeps a fault in place (a cut, a frozen process) for {@code length}: the wait ends when that long has passed.
   *
   * @param what the fault, named in a failure
   * @param length how long it lasts
   */
  static void hold(String what, Duration length) {
    long from = System.nanoTime();
    Awaitility.await(what + " held " + length.toSeconds() + " s").atMost(length.plusSeconds(30))
        .pollInterval(Duration.ofMillis(200)).until(() -> System.nanoTime() - from >= length.toNanos());
  }

  static List<Message> messages(int count, int keys, String keyPrefix) {
    List<Message> messages = new ArrayList<>(count);
    int[] next = new int[keys];
    for (int i = 0; i < count; i++) {
      int key = i % keys;
      String orderingKey = keyPrefix + key;
      messages.add(Message.builder().withDestination("orders").withOrderingKey(orderingKey)
          .withPayload((orderingKey + ":" + next[key]++).getBytes(StandardCharsets.UTF_8))
          .withHeaders(Map.of("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).build());
    }
    return messages;
  }

  static Set<String> payloads(List<Message> messages) {
    Set<String> payloads = new LinkedHashSet<>();
    messages.forEach(m -> payloads.add(new String(m.payload(), StandardCharsets.UTF_8)));
    return payloads;
  }

  @Test
  void two_tasks_deliver_every_entry_once_in_key_order_to_a_read_committed_consumer() throws JMException {
    String topic = "connect-eos-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 4);
    List<Message> messages = messages(3_000, 50, "k");
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("connect_eos_");
        Judge judge = new Judge(KAFKA, topic)) {
      outbox.write(messages.subList(0, 1_500));
      ConnectRest rest = workers.rest();
      rest.putConnector("eos", connectorConfig("connect_eos_", topic, 2));
      rest.awaitRunning("eos", 2);
      outbox.write(messages.subList(1_500, messages.size())); // while the tasks drain
      Awaitility.await("all records committed").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(10))
          .until(() -> judge.poll() >= messages.size());
      Awaitility.await("the outbox drained").atMost(Duration.ofSeconds(30)).until(() -> outbox.pending() == 0);
      judge.poll();

      Judge.Verdict verdict = judge.verdict(payloads(messages));
      assertThat(verdict).isEqualTo(new Judge.Verdict(messages.size(), 0, 0, 0, 0));
      assertThat(rest.status("eos").path("tasks").size()).isEqualTo(2);

      assertThat(taskMetricBeans("eos")).hasSize(2);
      assertThat(taskMetric("eos", "entries-committed-total")).isEqualTo(messages.size(), within(0.0));
      assertThat(taskMetric("eos", "entries-claimed-total")).isGreaterThanOrEqualTo(messages.size());
      assertThat(taskMetric("eos", "entries-quarantined-total")).isZero();
      assertThat(taskMetric("eos", "entries-settled-total")).isZero();
      assertThat(taskMetric("eos", "records-in-flight")).isZero();
      assertThat(taskMetric("eos", "poll-time-max-ms")).isPositive();
    }
  }

  /** @return the JMX names of the connector's task metrics ({@code kafka.connect:type=plugins,connector=,task=}) */
  static List<ObjectName> taskMetricBeans(String connector) throws JMException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    return server.queryNames(new ObjectName("kafka.connect:type=plugins,connector=" + connector + ",*"), null)
        .stream().filter(name -> name.getKeyPropertyList().keySet().equals(Set.of("type", "connector", "task")))
        .toList();
  }

  /** @return the attribute of the connector's task metrics, summed over its tasks */
  static double taskMetric(String connector, String attribute) throws JMException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    double sum = 0;
    for (ObjectName name : taskMetricBeans(connector)) {
      sum += ((Number) server.getAttribute(name, attribute)).doubleValue();
    }
    return sum;
  }

  @Test
  void a_record_kafka_would_refuse_quarantines_only_its_entry_and_blocks_only_its_key() throws JMException {
    String topic = "connect-large-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 2);
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("connect_large_");
        Judge judge = new Judge(KAFKA, topic)) {
      Message before = Message.builder().withDestination("orders").withOrderingKey("big")
          .withPayload("big:0".getBytes(StandardCharsets.UTF_8)).build();
      Message tooLarge = Message.builder().withDestination("orders").withOrderingKey("big")
          .withPayload(new byte[8_192]).build();
      Message behind = Message.builder().withDestination("orders").withOrderingKey("big")
          .withPayload("big:2".getBytes(StandardCharsets.UTF_8)).build();
      List<Message> others = messages(200, 5, "other");
      List<Message> all = new ArrayList<>(List.of(before, tooLarge, behind));
      all.addAll(others);
      outbox.write(all);
      Map<String, String> config = connectorConfig("connect_large_", topic, 2);
      config.put(OutboxSourceConfig.MAX_RECORD_BYTES, "4096");
      ConnectRest rest = workers.rest();
      rest.putConnector("large", config);
      rest.awaitRunning("large", 2);

      Awaitility.await("the other keys and the entry before the large one delivered").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(50)).until(() -> judge.poll() >= others.size() + 1);
      Awaitility.await("the large entry quarantined").atMost(Duration.ofSeconds(30))
          .until(() -> outbox.store().quarantined(QuarantineQuery.first(10)).size() == 1);
      assertThat(outbox.store().quarantined(QuarantineQuery.first(10)).get(0).id()).isEqualTo(tooLarge.id());
      assertThat(outbox.store().quarantined(QuarantineQuery.first(10)).get(0).quarantineReason())
          .contains("max.record.bytes");
      assertThat(outbox.store().find(behind.id())).isPresent(); // blocked behind it, not sent
      rest.awaitRunning("large", 2); // no task failed
      judge.poll();
      Set<String> expected = payloads(others);
      expected.add("big:0");
      assertThat(judge.verdict(expected)).isEqualTo(new Judge.Verdict(others.size() + 1, 0, 0, 0, 0));
      assertThat(taskMetric("large", "entries-quarantined-total")).isEqualTo(1, within(0.0));
    }
  }
}
