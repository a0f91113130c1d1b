package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task's metrics in a worker's registry (the worker's own {@link Metrics} and {@link PluginMetricsImpl}, as Connect
 * makes them per task instance): a task restarted on the same worker while its previous instance still closes starts
 * and publishes its metrics, and one task's stop leaves another task's metrics in place.
 */
class OutboxSourceTaskMetricsTest {
  private final TaskOnH2 outbox = new TaskOnH2();
  private final Metrics registry = new Metrics();

  @AfterEach
  void close() throws SQLException {
    registry.close();
    outbox.close();
  }

  private static Map<String, String> tags(int task) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("connector", "outbox");
    tags.put("task", Integer.toString(task));
    return tags;
  }

  private KafkaMetric metric(String name, int task) {
    return registry.metric(new MetricName(name, "plugins", "", tags(task)));
  }

  /** A task instance as a worker runs it: the task and the plugin metrics the worker made for it. */
  private record Instance(OutboxSourceTask task, PluginMetricsImpl metrics) {
    /** What the worker's close of the instance does: the task's stop, later the plugin metrics' close. */
    void close() throws Exception {
      task.stop();
      metrics.close();
    }
  }

  private Instance start(int task) {
    PluginMetricsImpl metrics = new PluginMetricsImpl(registry, tags(task));
    return new Instance(outbox.start(metrics), metrics);
  }

  @Test
  void a_task_restarted_while_its_previous_instance_still_closes_starts_and_publishes_its_metrics()
      throws Exception {
    outbox.write(4);
    Instance previous = start(0);
    Instance next = start(0); // the worker gave up waiting for the previous instance, whose close still runs
    try {
      previous.task().stop(); // the previous instance's close: the task first, then the producer, then its metrics
      assertThat(next.task().poll()).hasSize(4);
      previous.metrics().close();

      assertThat(metric("entries-claimed-total", 0)).as("the next instance's count, published")
          .isNotNull().extracting(KafkaMetric::metricValue).isEqualTo(4L);
      assertThat(metric("poll-time-max-ms", 0)).isNotNull();
    } finally {
      next.close();
    }
    assertThat(metric("entries-claimed-total", 0)).as("removed when the task stops").isNull();
  }

  @Test
  void one_task_stopping_leaves_the_metrics_of_another_task_on_the_worker() throws Exception {
    outbox.write(4);
    Instance first = start(0);
    Instance second = start(1);
    try {
      assertThat(second.task().poll()).hasSize(4);
      first.close();

      assertThat(metric("poll-time-max-ms", 1)).as("the second task's poll times").isNotNull();
      assertThat(metric("entries-claimed-total", 1)).isNotNull().extracting(KafkaMetric::metricValue)
          .isEqualTo(4L);
    } finally {
      second.close();
    }
  }
}
