package dev.outbox4j.kafka;

import dev.outbox4j.OutboxException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Reads what {@link ClusterSettingsCheck} judges through the Admin API: the number of brokers
 * ({@code describeCluster}), one broker's transaction settings ({@code describeConfigs}), and whether the transaction
 * log exists ({@code listTopics} with internal topics). A cluster that denies these reads (no {@code DESCRIBE_CONFIGS}
 * on the cluster, as a managed service may) is not judged.
 *
 * <p>Stateless and thread-safe.
 */
final class ClusterSettingsProbe {
  private static final String TRANSACTION_LOG = "__transaction_state";

  private ClusterSettingsProbe() {}

  /**
   * @param admin the admin client
   * @param settings the transactional settings to judge against
   * @param requestTimeout the bound on each call
   * @param cancel stops the calls
   * @return the findings; empty when the cluster is fit or does not let its settings be read
   * @throws OutboxException if the cluster cannot be asked (not reachable)
   */
  static List<ProgressTopicCheck.Finding> judge(Admin admin, KafkaTransactions settings, Duration requestTimeout,
      LookupCancellation cancel) {
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
    try {
      Collection<Node> nodes = cancel.watch(admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs))
          .nodes()).get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      if (nodes.isEmpty()) {
        return List.of();
      }
      ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER,
          Integer.toString(nodes.iterator().next().id()));
      Config config = cancel.watch(admin.describeConfigs(List.of(broker),
          new DescribeConfigsOptions().timeoutMs(timeoutMs)).all()).get(requestTimeout.toMillis(),
          TimeUnit.MILLISECONDS).get(broker);
      Map<String, String> values = new HashMap<>();
      for (ConfigEntry entry : config.entries()) {
        if (entry.value() != null && ClusterSettingsCheck.SETTINGS.contains(entry.name())) {
          values.put(entry.name(), entry.value());
        }
      }
      Set<String> topics = cancel.watch(admin.listTopics(new ListTopicsOptions().listInternal(true)
          .timeoutMs(timeoutMs)).names()).get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      return ClusterSettingsCheck.check(settings, nodes.size(), values, topics.contains(TRANSACTION_LOG));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthorizationException || e.getCause() instanceof UnsupportedVersionException) {
        return List.of(); // not ours to read: the first batch tells what is wrong, if anything is
      }
      throw new OutboxException("cannot read the brokers' transaction settings: "
          + KafkaFailureClassifier.describe(e.getCause()), e.getCause());
    } catch (TimeoutException e) {
      throw new OutboxException("the brokers' transaction settings were not read within " + requestTimeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while reading the brokers' transaction settings", e);
    }
  }
}
