package dev.outbox4j.kafka.connect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A Kafka Connect source connector that drains an outbox4j outbox (the JDBC store: PostgreSQL, MariaDB/MySQL, H2)
 * into Kafka. Each task is a slot that claims batches through the store's claim face, so {@code tasks.max} tasks
 * share one outbox and keep every key's commit order; see {@link OutboxSourceTask} and {@code docs/kafka-connect.md}.
 *
 * <p>Exactly once is supported with the {@code poll} transaction boundary: run the workers with
 * {@code exactly.once.source.support=enabled} and the connector with {@code exactly.once.support=required}.
 *
 * <p>Thread-safe as Connect uses it.
 */
public final class OutboxSourceConnector extends SourceConnector {
  /** The connector's version, as Connect's REST API shows it. */
  static final String VERSION = versionOf();

  private Map<String, String> settings = Map.of();

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public void start(Map<String, String> props) {
    new OutboxSourceConfig(props); // fail fast, naming the key
    settings = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return OutboxSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    List<Map<String, String>> tasks = new ArrayList<>(maxTasks);
    for (int slot = 0; slot < maxTasks; slot++) {
      Map<String, String> task = new HashMap<>(settings);
      task.put(OutboxSourceTask.SLOT, Integer.toString(slot));
      task.put(OutboxSourceTask.SLOTS, Integer.toString(maxTasks));
      tasks.add(task);
    }
    return tasks;
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return OutboxSourceConfig.CONFIG_DEF;
  }

  /**
   * Validates each key as {@link #config()} defines it, then the rules that join keys: {@code lease.ms} against the
   * producer's transaction timeout, {@code tasks.max} against {@code settle.slots}, and {@code errors.tolerance}
   * (which must stay {@code none}: a record the worker skipped would be retired as if it had landed).
   */
  @Override
  public Config validate(Map<String, String> props) {
    Config config = super.validate(props);
    Map<String, ConfigValue> values = new HashMap<>();
    config.configValues().forEach(value -> values.put(value.name(), value));
    ConfigValue lease = values.get(OutboxSourceConfig.LEASE_MS);
    if (lease != null && lease.errorMessages().isEmpty() && lease.value() instanceof Long leaseMs) {
      try {
        long transactionTimeout = OutboxSourceConfig.transactionTimeoutMs(props);
        if (leaseMs < transactionTimeout + OutboxSourceConfig.LEASE_MARGIN_MS) {
          lease.addErrorMessage(OutboxSourceConfig.LEASE_MS + " (" + leaseMs + ") must be at least the producer's"
              + " transaction.timeout.ms (" + transactionTimeout + ") + " + OutboxSourceConfig.LEASE_MARGIN_MS
              + " ms, so that a transaction still open when the lease ends is certain to be aborted");
        }
      } catch (org.apache.kafka.common.config.ConfigException e) {
        lease.addErrorMessage(e.getMessage());
      }
    }
    ConfigValue slots = values.get(OutboxSourceConfig.SETTLE_SLOTS);
    String tasksMax = props.get("tasks.max");
    if (slots != null && slots.errorMessages().isEmpty() && slots.value() instanceof Integer settleSlots
        && tasksMax != null && tasksMax.trim().matches("\\d+") && Integer.parseInt(tasksMax.trim()) > settleSlots) {
      slots.addErrorMessage(OutboxSourceConfig.SETTLE_SLOTS + " (" + settleSlots + ") must be at least tasks.max ("
          + tasksMax.trim() + "): a task reads the committed offsets of that many slots");
    }
    if ("all".equalsIgnoreCase(props.getOrDefault("errors.tolerance", "none").trim())) {
      List<ConfigValue> extended = new ArrayList<>(config.configValues());
      ConfigValue tolerance = new ConfigValue("errors.tolerance");
      tolerance.value("all");
      tolerance.addErrorMessage("errors.tolerance must be none for the outbox connector: a record the worker skipped"
          + " would be retired as delivered; the connector quarantines the records Kafka would refuse itself");
      extended.add(tolerance);
      return new Config(extended);
    }
    return config;
  }

  @Override
  public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
    return ExactlyOnceSupport.SUPPORTED;
  }

  @Override
  public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
    return ConnectorTransactionBoundaries.UNSUPPORTED;
  }

  private static String versionOf() {
    String version = OutboxSourceConnector.class.getPackage().getImplementationVersion();
    return version == null ? "0.1.0-SNAPSHOT" : version;
  }
}
