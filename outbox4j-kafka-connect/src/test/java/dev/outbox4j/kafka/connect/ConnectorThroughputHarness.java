package dev.outbox4j.kafka.connect;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.kafka.KafkaTransactions;
import dev.outbox4j.kafka.KafkaTransport;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Throughput into Kafka through the connector, against the JDBC + client baseline and the relay's transactional Kafka
 * mode, in one JVM on one broker (8 partitions per row) and one PostgreSQL database, N entries per run over 1,000 keys,
 * batches of 500. A harness, not a test: it asserts nothing and prints the rows and their ratios. Run it with
 * {@code mvn -B -ntp -pl outbox4j-kafka-connect -am test -Dtest=ConnectorThroughputHarness
 * -Dsurefire.failIfNoSpecifiedTests=false -Doutbox4j.connect.bench.rows=20000 [-Doutbox4j.connect.bench.runs=2]
 * [-Doutbox4j.connect.bench.warmups=1]}: each warm-up runs every row once, untimed.
 *
 * <ul>
 *   <li><b>baseline</b>: one thread, per batch {@code SELECT … ORDER BY seq LIMIT 500 FOR UPDATE SKIP LOCKED}, send
 *       all 500 with an idempotent producer ({@code acks=all}, linger 5 ms), await every acknowledgement, {@code DELETE},
 *       commit (as outbox4j-bench's baseline row): at least once, no lease;
 *   <li><b>relay, transactional</b>: {@code Relay.drain} with the Kafka transport's transactional mode (a transaction
 *       per batch, progress topic), batch 500;
 *   <li><b>connector</b>: one in-process distributed worker with exactly-once source support, the connector with
 *       {@code tasks.max} 1 and 2, {@code batch.size=500}; created on the empty outbox and paused, the backlog written,
 *       then timed from resume until every entry is retired (retired only after Connect reported it committed).
 * </ul>
 */
@EnabledIfSystemProperty(named = "outbox4j.connect.bench.rows", matches = "[1-9][0-9]*")
class ConnectorThroughputHarness {
  private static final EmbeddedKafka KAFKA = EmbeddedKafka.shared();
  private static final int BATCH = 500;

  @Test
  void connector_throughput_against_the_baseline_and_the_relays_transactional_mode() throws Exception {
    int rows = Integer.getInteger("outbox4j.connect.bench.rows");
    int runs = Integer.getInteger("outbox4j.connect.bench.runs", 2);
    int warmups = Integer.getInteger("outbox4j.connect.bench.warmups", 1);
    List<Message> messages = OutboxSourceConnectorExactlyOnceTest.messages(rows, 1_000, "k");
    double[] baseline = new double[runs];
    double[] relay = new double[runs];
    double[] connector1 = new double[runs];
    double[] connector2 = new double[runs];
    try (ConnectWorkers workers = ConnectWorkers.start(KAFKA, 1, true)) {
      for (int warmup = 0; warmup < warmups; warmup++) { // every path's code compiled before a timed run
        baseline(messages);
        relayTransactional(messages);
        connector(workers, messages, 1, -1 - warmup);
        connector(workers, messages, 2, -1 - warmup);
      }
      for (int run = 0; run < runs; run++) {
        baseline[run] = baseline(messages);
        relay[run] = relayTransactional(messages);
        connector1[run] = connector(workers, messages, 1, run);
        connector2[run] = connector(workers, messages, 2, run);
        System.out.printf(Locale.ROOT, "run %d: baseline %.0f, relay transactional %.0f, connector tasks.max=1 %.0f,"
            + " tasks.max=2 %.0f msgs/s%n", run + 1, baseline[run], relay[run], connector1[run], connector2[run]);
      }
    }
    double base = mean(baseline);
    System.out.printf(Locale.ROOT, "connector throughput, %,d entries over 1,000 keys, %d warm-ups, %d runs (mean"
        + " msgs/s):%n"
        + "  baseline JDBC + client (idempotent, at least once) %,.0f%n"
        + "  relay, transactional Kafka mode                     %,.0f  (%.2f x baseline)%n"
        + "  connector, exactly once, tasks.max=1                %,.0f  (%.2f x baseline, %.2f x relay)%n"
        + "  connector, exactly once, tasks.max=2                %,.0f  (%.2f x baseline, %.2f x relay)%n",
        rows, warmups, runs, base, mean(relay), mean(relay) / base, mean(connector1), mean(connector1) / base,
        mean(connector1) / mean(relay), mean(connector2), mean(connector2) / base, mean(connector2) / mean(relay));
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double value : values) {
      sum += value;
    }
    return sum / values.length;
  }

  private static String newTopic() {
    String topic = "connect-bench-" + UUID.randomUUID();
    KAFKA.createTopic(topic, 8);
    return topic;
  }

  private static double perSecond(int count, long startedNanos) {
    return count / ((System.nanoTime() - startedNanos) / 1e9);
  }

  private static double baseline(List<Message> messages) throws Exception {
    String topic = newTopic();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("connect_bench_base_");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer())) {
      outbox.write(messages);
      String table = "connect_bench_base_outbox";
      long started = System.nanoTime();
      int drained = 0;
      try (Connection connection = java.sql.DriverManager.getConnection(
          dev.outbox4j.jdbc.testing.RunDatabases.postgresUrl());
          PreparedStatement select = connection.prepareStatement("SELECT id, ordering_key, payload, content_type FROM "
              + table + " WHERE status IN ('PENDING', 'FAILED') ORDER BY seq LIMIT " + BATCH
              + " FOR UPDATE SKIP LOCKED");
          PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + " WHERE id = ANY(?)")) {
        connection.setAutoCommit(false);
        while (true) {
          List<Future<RecordMetadata>> sent = new ArrayList<>(BATCH);
          List<UUID> ids = new ArrayList<>(BATCH);
          try (ResultSet result = select.executeQuery()) {
            while (result.next()) {
              UUID id = result.getObject(1, UUID.class);
              ids.add(id);
              String key = result.getString(2);
              List<Header> headers = List.of(
                  new RecordHeader("content-type", result.getString(4).getBytes(StandardCharsets.UTF_8)),
                  new RecordHeader("message-id", id.toString().getBytes(StandardCharsets.UTF_8)));
              sent.add(producer.send(new ProducerRecord<>(topic, null, null,
                  key == null ? null : key.getBytes(StandardCharsets.UTF_8), result.getBytes(3), headers)));
            }
          }
          if (ids.isEmpty()) {
            connection.commit();
            break;
          }
          for (Future<RecordMetadata> acknowledgement : sent) {
            acknowledgement.get(30, TimeUnit.SECONDS);
          }
          delete.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
          drained += delete.executeUpdate();
          connection.commit();
        }
      }
      double rate = perSecond(drained, started);
      if (drained != messages.size()) {
        throw new IllegalStateException("the baseline drained " + drained + " of " + messages.size());
      }
      return rate;
    } finally {
      KAFKA.deleteTopic(topic);
    }
  }

  private static double relayTransactional(List<Message> messages) {
    String topic = newTopic();
    KafkaTransport transport = KafkaTransport.builder().withBootstrapServers(KAFKA.bootstrapServers())
        .withTopicMapping(message -> topic)
        .withTransactions(KafkaTransactions.builder().withProgressTopic(topic + "-progress").build()).build();
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh("connect_bench_relay_")) {
      outbox.write(messages);
      Relay relay = Relay.builder(outbox.store(), transport).withBatchSize(BATCH).withMaxInFlight(BATCH).build();
      long started = System.nanoTime();
      relay.drain(Integer.MAX_VALUE);
      double rate = perSecond(messages.size(), started);
      if (outbox.pending() != 0) {
        throw new IllegalStateException("the relay left " + outbox.pending() + " entries");
      }
      relay.close();
      return rate;
    } finally {
      transport.close();
      KAFKA.deleteTopic(topic);
      KAFKA.deleteTopic(topic + "-progress");
    }
  }

  private static double connector(ConnectWorkers workers, List<Message> messages, int tasks, int run) {
    String topic = newTopic();
    String prefix = "connect_bench_conn_";
    String name = "bench-" + tasks + "-" + (run < 0 ? "warmup" + -run : run);
    try (PostgresTestOutbox outbox = PostgresTestOutbox.fresh(prefix)) {
      Map<String, String> config = OutboxSourceConnectorExactlyOnceTest.connectorConfig(prefix, topic, tasks);
      config.put(OutboxSourceConfig.BATCH_SIZE, Integer.toString(BATCH));
      config.put(OutboxSourceConfig.PREPARED_STATEMENTS, Boolean.getBoolean("outbox4j.connect.bench.prepared") + "");
      ConnectRest rest = workers.rest();
      rest.putConnector(name, config);
      rest.awaitRunning(name, tasks);
      rest.pause(name);
      rest.awaitState(name, "PAUSED", tasks);
      outbox.write(messages);
      long started = System.nanoTime();
      rest.resume(name);
      Awaitility.await(name + " drained").atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(10))
          .until(() -> outbox.pending() == 0);
      double rate = perSecond(messages.size(), started);
      rest.delete(name);
      return rate;
    } finally {
      KAFKA.deleteTopic(topic);
    }
  }
}
