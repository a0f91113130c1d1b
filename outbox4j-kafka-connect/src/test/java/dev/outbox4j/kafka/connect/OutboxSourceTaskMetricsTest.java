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

  @Test
  void a_task_restarted_while_its_previous_instance_still_closes_starts_and_publishes_its_metrics()
      throws Exception {
    outbox.write(4);
    PluginMetricsImpl previousMetrics = new PluginMetricsImpl(registry, tags(0));
    OutboxSourceTask previous = outbox.start(previousMetrics);
    // The worker gave up waiting for the previous instance (its close still runs) and starts the next one.
    PluginMetricsImpl nextMetrics = new PluginMetricsImpl(registry, tags(0));
    OutboxSourceTask next = outbox.start(nextMetrics);
    try {
      previous.stop(); // the previous instance's close: the task first, then the producer, then its plugin metrics
      assertThat(next.poll()).hasSize(4);
      previousMetrics.close();

      assertThat(metric("entries-claimed-total", 0)).as("the next instance's count, published")
          .isNotNull().extracting(KafkaMetric::metricValue).isEqualTo(4L);
      assertThat(metric("poll-time-max-ms", 0)).isNotNull();
    } finally {
      next.stop();
      nextMetrics.close();
    }
    assertThat(metric("entries-claimed-total", 0)).as("removed when the task stops").isNull();
  }

  @Test
  void one_task_stopping_leaves_the_metrics_of_another_task_on_the_worker() throws Exception {
    outbox.write(4);
    PluginMetricsImpl firstMetrics = new PluginMetricsImpl(registry, tags(0));
    OutboxSourceTask first = outbox.start(firstMetrics);
    PluginMetricsImpl secondMetrics = new PluginMetricsImpl(registry, tags(1));
    OutboxSourceTask second = outbox.start(secondMetrics);
    try {
      assertThat(second.poll()).hasSize(4);
      first.stop();
      firstMetrics.close();

      assertThat(metric("poll-time-max-ms", 1)).as("the second task's poll times").isNotNull();
      assertThat(metric("entries-claimed-total", 1)).isNotNull().extracting(KafkaMetric::metricValue)
          .isEqualTo(4L);
    } finally {
      second.stop();
      secondMetrics.close();
    }
  }
}
