package dev.outbox4j.kafka.connect;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;

/**
 * Tasks started outside a worker against a real outbox in a private in-memory H2 database, on a {@link SettableClock}
 * that the tasks and the test's store share: for what a task does between its claim and its return from poll. The
 * task's context has no committed offsets; each look-up of them runs {@link #onOffsetLookUp}. Closing drops the
 * database; the test stops its tasks.
 */
final class TaskOnH2 implements AutoCloseable {
  /** The smallest lease the default transaction timeout (60 s) allows: a send window of 90 - 60 - 15 = 15 s. */
  static final Duration LEASE = Duration.ofSeconds(90);
  private static final String PREFIX = "task_";

  final SettableClock clock = SettableClock.atFixedStart();
  /** Run at each look-up of committed offsets, on the task's thread. */
  final List<Runnable> onOffsetLookUp = new CopyOnWriteArrayList<>();
  final JdbcOutboxStore store;
  private final JdbcDataSource dataSource = new JdbcDataSource();
  private final Map<String, String> settings = new HashMap<>();

  TaskOnH2() {
    String url = "jdbc:h2:mem:task-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    dataSource.setURL(url);
    store = JdbcOutboxStore.builder(dataSource).withTablePrefix(PREFIX).withClock(clock).build();
    store.migrate();
    settings.put(OutboxSourceConfig.JDBC_URL, url);
    settings.put(OutboxSourceConfig.TABLE_PREFIX, PREFIX);
    settings.put(OutboxSourceConfig.LEASE_MS, Long.toString(LEASE.toMillis()));
    settings.put(OutboxSourceConfig.POLL_INTERVAL_MS, "10");
    settings.put(OutboxSourceConfig.SETTLE_SLOTS, "2");
  }

  /** Sets one of the task's settings, for the tasks started after. */
  TaskOnH2 with(String setting, String value) {
    settings.put(setting, value);
    return this;
  }

  /**
   * @param metrics the worker's plugin metrics for the task; {@code null} for a worker without them
   * @return a started task of slot 0
   */
  OutboxSourceTask start(@Nullable PluginMetrics metrics) {
    OutboxSourceTask task = new OutboxSourceTask(clock);
    task.initialize(new Context(metrics));
    task.start(settings);
    return task;
  }

  /** @return the messages written, {@code count} of them over two keys, in one committed transaction */
  List<Message> write(int count) throws SQLException {
    return write(count, 2);
  }

  /** @return the messages written, {@code count} of them over {@code keys} keys round robin, in one transaction */
  List<Message> write(int count, int keys) throws SQLException {
    List<Message> messages = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String key = "k" + (i % keys);
      messages.add(Message.builder().withDestination("orders").withOrderingKey(key)
          .withPayload((key + ":" + i).getBytes(StandardCharsets.UTF_8)).build());
    }
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      store.outbox().writeAll(connection, messages);
      connection.commit();
    }
    return messages;
  }

  @Override
  public void close() throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("SHUTDOWN");
    }
  }

  private final class Context implements SourceTaskContext {
    private final @Nullable PluginMetrics metrics;

    Context(@Nullable PluginMetrics metrics) {
      this.metrics = metrics;
    }

    @Override
    public Map<String, String> configs() {
      return settings;
    }

    @Override
    public OffsetStorageReader offsetStorageReader() {
      return new OffsetStorageReader() {
        @Override
        public <T> @Nullable Map<String, Object> offset(Map<String, T> partition) {
          onOffsetLookUp.forEach(Runnable::run);
          return null;
        }

        @Override
        public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
          onOffsetLookUp.forEach(Runnable::run);
          return Map.of();
        }
      };
    }

    @Override
    public PluginMetrics pluginMetrics() {
      if (metrics == null) {
        throw new UnsupportedOperationException("a worker without plugin metrics");
      }
      return metrics;
    }
  }
}
