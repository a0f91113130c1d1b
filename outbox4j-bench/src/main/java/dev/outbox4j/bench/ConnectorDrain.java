package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.kafka.EmbeddedKafka;
import dev.outbox4j.kafka.connect.ConnectRest;
import dev.outbox4j.kafka.connect.ConnectWorkers;
import dev.outbox4j.kafka.connect.OutboxSourceConfig;
import dev.outbox4j.kafka.connect.OutboxSourceConnector;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.jspecify.annotations.Nullable;

/**
 * Broker end to end through Kafka Connect: outbox4j's source connector ({@code outbox4j-kafka-connect}) drains the
 * keyed backlog of the broker scenarios (N entries over {@value Outbox4jTables#KEYS} keys, batches of
 * {@value #BATCH}) into a topic of the in-process broker, exactly once: one distributed worker with
 * {@code exactly.once.source.support=enabled}, started in this JVM for the row (not measured), and the connector with
 * {@code exactly.once.support=required}, {@code tasks.max} 1 or 2. Each run creates a connector of its own on the
 * emptied outbox, pauses it, writes the backlog, and is timed from its resume until every entry is retired, which the
 * task does only after Connect reported its records and offsets committed. Its ratios are against the JDBC + client
 * baseline (at least once, no transaction) and the relay's transactional Kafka mode, keyed, of the same run.
 *
 * <p>The connector's connections carry the bench's application name, so the {@link CpuMeter} counts their PostgreSQL
 * backends; the worker, like the broker, is this JVM's CPU.
 */
final class ConnectorDrain implements Scenario {
  static final int BATCH = Outbox4jBrokerDrain.BATCH;

  private final BenchDatabase database;
  private final KafkaBenchBroker broker;
  private final int tasks;
  private final Outbox4jTables tables;
  private final HikariDataSource pool;
  private final ConnectWorkers workers;
  private final ConnectRest rest;
  private @Nullable String connector;
  private int runs;

  /** @param tasks the connector's {@code tasks.max} */
  ConnectorDrain(BenchDatabase database, int tasks) throws Exception {
    this.database = database;
    this.tasks = tasks;
    this.broker = new KafkaBenchBroker();
    this.tables = new Outbox4jTables(database, Outbox4jBrokerDrain.TABLE_PREFIX);
    try {
      this.pool = database.pool("connect-" + tasks, 1, true);
      tables.recreate(pool);
      this.workers = ConnectWorkers.start(EmbeddedKafka.shared(), 1, true);
      this.rest = workers.rest();
    } catch (Exception e) {
      broker.close();
      throw e;
    }
  }

  @Override
  public String id() {
    return "kafka-connect-outbox4j-keyed" + (tasks == 1 ? "" : "-" + tasks + "tasks");
  }

  @Override
  public String title() {
    return "8 outbox4j source connector on Kafka Connect (1 distributed worker, exactly once: a transaction per poll,"
        + " tasks.max=" + tasks + ") → Kafka (in-process KRaft broker, " + KafkaBenchBroker.PARTITIONS
        + " partitions), batches of " + BATCH + ", keyed (" + Outbox4jTables.KEYS + " keys)";
  }

  @Override
  public void prepare(int messages) throws Exception {
    dropConnector();
    tables.truncate();
    // a connector of its own per run: no offsets, no claim window learnt from an earlier backlog
    String name = "outbox4j-bench-" + tasks + "-" + ++runs;
    rest.putConnector(name, config());
    connector = name;
    rest.awaitRunning(name, tasks);
    rest.pause(name);
    rest.awaitState(name, "PAUSED", tasks);
    tables.insertMore(messages, true);
  }

  private Map<String, String> config() {
    String url = database.options().jdbcUrl();
    Map<String, String> config = new HashMap<>();
    config.put("connector.class", OutboxSourceConnector.class.getName());
    config.put("tasks.max", Integer.toString(tasks));
    config.put("exactly.once.support", "required");
    config.put("transaction.boundary", "poll");
    config.put(OutboxSourceConfig.JDBC_URL, url + (url.contains("?") ? "&" : "?") + "ApplicationName="
        + BenchDatabase.APPLICATION_NAME + "-connector");
    config.put(OutboxSourceConfig.JDBC_USER, database.options().user());
    config.put(OutboxSourceConfig.TABLE_PREFIX, Outbox4jBrokerDrain.TABLE_PREFIX);
    config.put(OutboxSourceConfig.TOPIC_PATTERN, broker.topic());
    config.put(OutboxSourceConfig.BATCH_SIZE, Integer.toString(BATCH));
    return config;
  }

  @Override
  public Outcome execute(int messages) throws Exception {
    String name = connector;
    if (name == null) {
      throw new IllegalStateException(id() + " was not prepared");
    }
    rest.resume(name);
    // Watched through the tasks' own count of retired entries (JMX), not the table: a count(*) of the outbox every
    // few milliseconds would cost PostgreSQL more than the drain itself on a large backlog.
    ObjectName tasksOf = new ObjectName("kafka.connect:type=plugins,connector=" + name + ",task=*");
    while (retired(tasksOf) < messages) {
      Thread.sleep(5);
    }
    try (Connection connection = pool.getConnection(); Statement count = connection.createStatement()) {
      long left = waiting(count);
      if (left > 0) {
        throw new IllegalStateException(id() + " left " + left + " of " + messages + " entries");
      }
    }
    return Outcome.of(messages);
  }

  /** @return the entries the connector's tasks retired after Connect reported them committed, summed over tasks */
  private static long retired(ObjectName tasksOf) throws JMException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    long sum = 0;
    for (ObjectName task : server.queryNames(tasksOf, null)) {
      sum += ((Number) server.getAttribute(task, "entries-committed-total")).longValue();
    }
    return sum;
  }

  private long waiting(Statement count) throws SQLException {
    try (ResultSet result = count.executeQuery("SELECT count(*) FROM " + tables.outbox()
        + " WHERE status IN ('PENDING', 'FAILED')")) {
      result.next();
      return result.getLong(1);
    }
  }

  /** @return the topic the connector writes to */
  String topic() {
    return broker.topic();
  }

  private void dropConnector() {
    if (connector != null) {
      rest.delete(connector);
      connector = null;
    }
  }

  @Override
  public void close() throws Exception {
    try (broker; pool; workers) {
      dropConnector();
    }
  }
}
