package dev.outbox4j.kafka.connect;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.jspecify.annotations.Nullable;

/**
 * A task's metrics, registered through Connect's plugin metrics (KIP-877, Connect 4.1+): the worker publishes them with
 * its own metrics, in JMX as {@code kafka.connect:type=plugins,connector=<connector>,task=<task>}.
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
 * <h2>A task restarted on the same worker</h2>
 * The names are the same for every instance of a task, and the worker removes an instance's metrics only at the end of
 * its close, after the task's {@code stop()} and the producer's close (up to 30 s), while it may start the next
 * instance once the graceful stop timeout (5 s) passed. So the metrics are removed in {@link #close} (the task's
 * {@code stop()}); a name still held by an instance that has not stopped yet is not an error: the count is kept and the
 * name registered by a later {@link #publish}. The poll-time sensor has a name of its own per instance: the worker's
 * sensors are shared by name, and a shared one would mix the tasks' polls and lose every task's poll times when one
 * task stopped.
 *
 * <p>On a worker older than 4.1 (no plugin metrics) the counts are kept and not published. Thread-safe.
 */
final class TaskMetrics {
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka.connect");

  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();
  private final AtomicLong quarantined = new AtomicLong();
  private final @Nullable PluginMetrics metrics;
  private final @Nullable Sensor pollTime;
  private final String sensorName = "outbox4j-poll-time-" + UUID.randomUUID();
  /** What is still to register (a name held by an earlier instance of the task), in order. */
  private final Map<MetricName, Runnable> unpublished = new LinkedHashMap<>();
  private final List<MetricName> published = new ArrayList<>();
  private boolean closed;

  private TaskMetrics(@Nullable PluginMetrics metrics, LongSupplier inFlight) {
    this.metrics = metrics;
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
    Sensor sensor = metrics.addSensor(sensorName);
    pollTime = sensor;
    MetricName average = metrics.metricName("poll-time-avg-ms", "Average time of a poll that returned records.",
        new LinkedHashMap<>());
    unpublished.put(average, () -> sensor.add(average, new Avg()));
    MetricName longest = metrics.metricName("poll-time-max-ms", "Longest time of a poll that returned records.",
        new LinkedHashMap<>());
    unpublished.put(longest, () -> sensor.add(longest, new Max()));
    publish();
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

  private void count(PluginMetrics registry, String name, String description, LongSupplier value) {
    MetricName metricName = registry.metricName(name, description, new LinkedHashMap<>());
    unpublished.put(metricName, () -> registry.addMetric(metricName, (Gauge<Long>) (config, now) -> value.getAsLong()));
  }

  /**
   * Registers the metrics not registered yet; a name an earlier instance of the task still holds stays for the next
   * call (each poll makes one).
   */
  synchronized void publish() {
    if (closed || unpublished.isEmpty()) {
      return;
    }
    for (Iterator<Map.Entry<MetricName, Runnable>> pending = unpublished.entrySet().iterator(); pending.hasNext(); ) {
      Map.Entry<MetricName, Runnable> metric = pending.next();
      try {
        metric.getValue().run();
      } catch (IllegalArgumentException heldByAnEarlierInstance) {
        LOGGER.log(System.Logger.Level.DEBUG, "metric {0} not registered yet: {1}", metric.getKey().name(),
            heldByAnEarlierInstance.getMessage());
        continue;
      }
      published.add(metric.getKey());
      pending.remove();
    }
  }

  /** Removes this instance's metrics (the task stops); the counts stay readable. */
  synchronized void close() {
    PluginMetrics registry = metrics;
    if (closed || registry == null) {
      return;
    }
    closed = true;
    quietly(() -> registry.removeSensor(sensorName)); // with the poll-time metrics added to it
    for (MetricName name : published) {
      if (!name.name().startsWith("poll-time-")) {
        quietly(() -> registry.removeMetric(name));
      }
    }
    published.clear();
  }

  private static void quietly(Runnable removal) {
    try {
      removal.run();
    } catch (IllegalStateException | IllegalArgumentException alreadyRemoved) {
      // the worker closed this instance's plugin metrics first: nothing is left to remove
      LOGGER.log(System.Logger.Level.DEBUG, "task metric already removed: {0}", alreadyRemoved.getMessage());
    }
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
