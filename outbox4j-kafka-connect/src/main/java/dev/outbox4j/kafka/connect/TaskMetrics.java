package dev.outbox4j.kafka.connect;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.MeasurableStat;
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
 * <p>A task started again on a worker that still holds its previous instance's metrics publishes its counts once the
 * worker lets the names go (tried at every poll that returns records), rather than fail to start. On a worker older
 * than 4.1 (no plugin metrics) the counts are kept and not published. Thread-safe.
 */
final class TaskMetrics {
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka.connect");
  /** Sensors are named in the worker's registry without tags: each instance takes a name no other task shares. */
  private static final AtomicLong SENSORS = new AtomicLong();

  private final AtomicLong claimed = new AtomicLong();
  private final AtomicLong committed = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();
  private final AtomicLong quarantined = new AtomicLong();
  private final @Nullable PluginMetrics metrics;
  private final @Nullable Sensor pollTime;
  /** Gauges whose name the worker still holds for an earlier instance of this task; guarded by {@code this}. */
  private final Map<MetricName, LongSupplier> unpublished = new LinkedHashMap<>();
  private volatile boolean allPublished;

  private TaskMetrics(@Nullable PluginMetrics metrics, LongSupplier inFlight) {
    this.metrics = metrics;
    if (metrics == null) {
      pollTime = null;
      allPublished = true;
      return;
    }
    gauge(metrics, "entries-claimed-total", "Entries this task claimed.", claimed::get);
    gauge(metrics, "entries-committed-total", "Entries retired after Connect reported their records committed.",
        committed::get);
    gauge(metrics, "entries-settled-total", "Entries retired because a committed source offset lists them, instead"
        + " of being sent again.", settled::get);
    gauge(metrics, "entries-quarantined-total", "Entries quarantined because Kafka would refuse their record.",
        quarantined::get);
    gauge(metrics, "records-in-flight", "Records of the last poll not reported committed yet.", inFlight);
    publish();
    Sensor sensor = metrics.addSensor("outbox4j-task-poll-time-" + SENSORS.incrementAndGet());
    // A name an earlier instance still holds: add() refuses the stat only (the sensor records all the same).
    addStat(sensor, metrics.metricName("poll-time-avg-ms", "Average time of a poll that returned records.",
        new LinkedHashMap<>()), new Avg());
    addStat(sensor, metrics.metricName("poll-time-max-ms", "Longest time of a poll that returned records.",
        new LinkedHashMap<>()), new Max());
    pollTime = sensor;
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
    return of(metrics, inFlight);
  }

  /**
   * @param metrics the task's plugin metrics, or null on a worker without them
   * @param inFlight how many records are awaited
   * @return the task's metrics
   */
  static TaskMetrics of(@Nullable PluginMetrics metrics, LongSupplier inFlight) {
    return new TaskMetrics(metrics, inFlight);
  }

  private void gauge(PluginMetrics metrics, String name, String description, LongSupplier value) {
    unpublished.put(metrics.metricName(name, description, new LinkedHashMap<>()), value);
  }

  private static void addStat(Sensor sensor, MetricName name, MeasurableStat stat) {
    try {
      sensor.add(name, stat);
    } catch (IllegalArgumentException heldByAnEarlierInstance) {
      LOGGER.log(System.Logger.Level.WARNING, "task metric {0} not published: {1}", name.name(),
          heldByAnEarlierInstance.getMessage());
    }
  }

  /**
   * Registers the gauges not registered yet. A task started again on the same worker may start before the worker has
   * removed the previous instance's metrics (its stop outlasted the worker's graceful shutdown timeout, or a
   * rebalance restarted it at once): the names are still taken, and registering would fail the task. Those gauges are
   * tried again at every poll until the worker lets them go.
   */
  void publish() {
    if (allPublished) {
      return;
    }
    synchronized (this) {
      PluginMetrics registry = metrics;
      if (registry == null) {
        return;
      }
      for (Iterator<Map.Entry<MetricName, LongSupplier>> it = unpublished.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<MetricName, LongSupplier> gauge = it.next();
        LongSupplier value = gauge.getValue();
        try {
          registry.addMetric(gauge.getKey(), (Gauge<Long>) (config, now) -> value.getAsLong());
          it.remove();
        } catch (IllegalArgumentException stillHeld) {
          // The previous instance's metric: the next poll tries again.
        } catch (IllegalStateException closed) {
          unpublished.clear();
        }
      }
      allPublished = unpublished.isEmpty();
    }
  }

  /** @return whether every gauge is registered (tests) */
  boolean published() {
    return allPublished;
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
    publish();
    Sensor sensor = pollTime;
    if (sensor != null) {
      sensor.record(time.toNanos() / 1e6);
    }
  }
}
