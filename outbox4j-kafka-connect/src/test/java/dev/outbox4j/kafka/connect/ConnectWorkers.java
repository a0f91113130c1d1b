package dev.outbox4j.kafka.connect;

import dev.outbox4j.kafka.EmbeddedKafka;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.distributed.DistributedHerder;

/**
 * A Kafka Connect cluster in distributed mode, its workers started in this JVM from {@code connect-runtime} against the
 * in-process broker: the same engine a platform team runs, with its own group and internal topics per cluster.
 *
 * <p>Not thread-safe; the test closes it.
 */
public final class ConnectWorkers implements AutoCloseable {
  private final Map<String, String> settings;
  private final List<Connect<DistributedHerder>> workers = new ArrayList<>();

  private ConnectWorkers(Map<String, String> settings) {
    this.settings = settings;
  }

  /**
   * @param kafka the broker
   * @param exactlyOnce {@code exactly.once.source.support=enabled} when {@code true}
   * @return the settings every worker of a new cluster shares (group, internal topics, converters)
   */
  static Map<String, String> workerSettings(EmbeddedKafka kafka, boolean exactlyOnce) {
    String cluster = "connect-" + UUID.randomUUID();
    Map<String, String> settings = new HashMap<>();
    settings.put("bootstrap.servers", kafka.bootstrapServers());
    settings.put("group.id", cluster);
    settings.put("config.storage.topic", cluster + "-configs");
    settings.put("offset.storage.topic", cluster + "-offsets");
    settings.put("status.storage.topic", cluster + "-status");
    settings.put("config.storage.replication.factor", "1");
    settings.put("offset.storage.replication.factor", "1");
    settings.put("status.storage.replication.factor", "1");
    settings.put("offset.storage.partitions", "1");
    settings.put("status.storage.partitions", "1");
    settings.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    settings.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
    settings.put("listeners", "http://127.0.0.1:0");
    settings.put("offset.flush.interval.ms", "1000");
    // A departed worker's tasks move after this delay (default 5 minutes).
    settings.put("scheduled.rebalance.max.delay.ms", "2000");
    // A worker that cannot catch up with the config topic within worker.sync.timeout.ms (3 s) leaves the group for
    // this long (default 5 minutes) before it rejoins: on a loaded build machine a restarted worker can hit that.
    settings.put("worker.unsync.backoff.ms", "1000");
    settings.put("plugin.discovery", "service_load");
    settings.put("exactly.once.source.support", exactlyOnce ? "enabled" : "disabled");
    return settings;
  }

  /**
   * @param kafka the broker
   * @param count how many workers
   * @param exactlyOnce whether the workers support exactly-once source tasks
   * @return the running cluster
   */
  public static ConnectWorkers start(EmbeddedKafka kafka, int count, boolean exactlyOnce) {
    return start(workerSettings(kafka, exactlyOnce), count);
  }

  /**
   * Starts workers of a cluster that may have run before: same group and internal topics, so they find its
   * connectors, their configuration and their committed offsets.
   *
   * @param settings the cluster's worker settings ({@link #workerSettings})
   * @param count how many workers
   * @return the running cluster
   */
  static ConnectWorkers start(Map<String, String> settings, int count) {
    ConnectWorkers cluster = new ConnectWorkers(settings);
    for (int i = 0; i < count; i++) {
      cluster.addWorker();
    }
    return cluster;
  }

  /** Starts one more worker in the cluster. */
  void addWorker() {
    workers.add(new ConnectDistributed().startConnect(new HashMap<>(settings)));
  }

  /** Stops the worker started last, as an operator scales a cluster down: it leaves the group, its tasks move. */
  void removeWorker() {
    workers.remove(workers.size() - 1).stop();
  }

  /** @return how many workers run */
  int count() {
    return workers.size();
  }

  /** @return the REST API of the first running worker */
  public ConnectRest rest() {
    URI url = workers.get(0).rest().serverUrl();
    return new ConnectRest(url);
  }

  @Override
  public void close() {
    for (Connect<DistributedHerder> worker : workers) {
      worker.stop();
    }
    workers.clear();
  }
}
