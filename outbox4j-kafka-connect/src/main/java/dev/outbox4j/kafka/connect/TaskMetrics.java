package dev.outbox4j.kafka.connect;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.jspecify.annotations.Nullable;

/**
 * A task's metrics, registered through Connect's plugin metrics (KIP-877, Connect 4.1+): the worker publishes them with
 * its own metrics, in JMX as {@code kafka.connect:type=plugins,connector=<connector>,task=<task>}, and removes them when
 * the task stops.
 *
 * <ul>
 *   <li>{@code entries-claimed-total}: entries this task claimed (a claim handed back unsent counts too);
 *   <li>{@code entries-committed-total}: entries retired after Connect reported their records committed;
 *   <li>{@code entries-settled-total}: entries retired because a committed source offset lists them (on start after a
 *       crash between Kafka's commit and the outbox's, or for a claim in doubt), instead of being sent again;
 *   <li>{@code entries-quarantined-total}: entries quarantined because Kafka would refuse their record;
 *   <li>{@code records-in-flight}: records of the last poll not reported committed yet;
 *   <li>{@code poll-time-avg-ms}, {@code poll-time-max-ms}: how long a poll that returned records took (claim, settle
 *       look-up, building the records), over the worker's metrics window.
 * </ul>
 *
 * <p>On a worker older than 4.1 (no plugin metrics) the counts are kept and not published. Thread-safe.
 */
final class TaskMetrics {
  private static final String POLL_TIME = "poll-time";

  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();
  private final AtomicLong quarantined = new AtomicLong();
  private final @Nullable Sensor pollTime;

  private TaskMetrics(@Nullable PluginMetrics metrics, LongSupplier inFlight) {
    if (metrics == null) {
      pollTime = null;
      return;
    }
    count(metrics, "entries-claimed-total", "Entries this task claimed.", claimed::get);
    count(metrics, "entries-committed-total", "Entries retired after Connect reported their records committed.",
        committed::get);
    count(metrics, "entries-settled-total", "Entries retired because a committed source offset lists them, instead"
        + " of being sent again.", settled::get);
    count(metrics, "entries-quarantined-total", "Entries quarantined because Kafka would refuse their record.",
        quarantined::get);
    count(metrics, "records-in-flight", "Records of the last poll not reported committed yet.", inFlight);
    pollTime = metrics.addSensor(POLL_TIME);
    pollTime.add(metrics.metricName("poll-time-avg-ms", "Average time of a poll that returned records.",
        new LinkedHashMap<>()), new Avg());
    pollTime.add(metrics.metricName("poll-time-max-ms", "Longest time of a poll that returned records.",
        new LinkedHashMap<>()), new Max());
  }

  /**
   * @param context the task's context
   * @param inFlight how many records are awaited
   * @return the task's metrics, published when the worker offers plugin metrics
   */
  static TaskMetrics of(SourceTaskContext context, LongSupplier inFlight) {
    PluginMetrics metrics;
    try {
      metrics = context.pluginMetrics();
    } catch (AbstractMethodError | UnsupportedOperationException olderWorker) {
      metrics = null;
    }
    return new TaskMetrics(metrics, inFlight);
  }

  private static void count(PluginMetrics metrics, String name, String description, LongSupplier value) {
    metrics.addMetric(metrics.metricName(name, description, new LinkedHashMap<>()),
        (Gauge<Long>) (config, now) -> value.getAsLong());
  }

  void claimed(int entries) {
    claimed.addAndGet(entries);
  }

  void committed(int entries) {
    committed.addAndGet(entries);
  }

  void settled(int entries) {
    settled.addAndGet(entries);
  }

  void quarantined() {
    quarantined.incrementAndGet();
  }

  /** @param time how long a poll that returned records took */
  void polled(Duration time) {
    Sensor sensor = pollTime;
    if (sensor != null) {
      sensor.record(time.toNanos() / 1e6);
    }
  }
}
