package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/**
 * Task metrics on a worker's real metrics registry ({@link Metrics} with Connect's {@link PluginMetricsImpl} per task
 * instance, tagged as the worker tags them).
 */
class TaskMetricsTest {
  private final Metrics registry = new Metrics();

  private PluginMetricsImpl pluginMetrics(String connector, int task) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("connector", connector);
    tags.put("task", String.valueOf(task));
    return new PluginMetricsImpl(registry, tags);
  }

  private Object value(String name, String connector, int task) {
    Map<String, String> tags = new LinkedHashMap<>();
    tags.put("connector", connector);
    tags.put("task", String.valueOf(task));
    KafkaMetric metric = registry.metric(new MetricName(name, "plugins", "", tags));
    return metric == null ? null : metric.metricValue();
  }

  @Test
  void a_task_started_while_its_previous_instance_still_holds_the_names_starts_and_publishes_once_they_are_free()
      throws Exception {
    PluginMetricsImpl first = pluginMetrics("orders", 1);
    TaskMetrics before = TaskMetrics.of(first, () -> 0);
    before.claimed(5);

    PluginMetricsImpl second = pluginMetrics("orders", 1); // the same task, started again before the first was closed
    TaskMetrics after = TaskMetrics.of(second, () -> 0); // threw "A metric named ... already exists" before
    after.claimed(2);
    assertThat(after.published()).isFalse();
    assertThat(value("entries-claimed-total", "orders", 1)).isEqualTo(5L);

    first.close(); // the worker removes the first instance's metrics
    after.polled(Duration.ofMillis(3));
    assertThat(after.published()).isTrue();
    assertThat(value("entries-claimed-total", "orders", 1)).isEqualTo(2L);
    second.close();
  }

  @Test
  void two_tasks_on_one_worker_time_their_polls_apart_and_one_stopping_leaves_the_others_metrics() throws Exception {
    PluginMetricsImpl one = pluginMetrics("orders", 0);
    PluginMetricsImpl two = pluginMetrics("orders", 1);
    TaskMetrics first = TaskMetrics.of(one, () -> 0);
    TaskMetrics second = TaskMetrics.of(two, () -> 0);

    first.polled(Duration.ofMillis(40));
    second.polled(Duration.ofMillis(3));
    // One sensor named "poll-time" for both recorded each task's poll into the other's too: both maxima were 40.
    assertThat(value("poll-time-max-ms", "orders", 0)).isEqualTo(40.0);
    assertThat(value("poll-time-max-ms", "orders", 1)).isEqualTo(3.0);

    one.close();
    second.polled(Duration.ofMillis(5));
    assertThat(value("poll-time-max-ms", "orders", 1)).isEqualTo(5.0);
    assertThat(value("entries-claimed-total", "orders", 1)).isEqualTo(0L);
    two.close();
  }
}
