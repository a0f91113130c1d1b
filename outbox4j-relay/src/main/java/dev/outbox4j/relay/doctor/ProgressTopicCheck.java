package dev.outbox4j.relay.doctor;

import dev.outbox4j.jdbc.doctor.Finding;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.List;

/**
 * Checks the progress topic of a Kafka transport in the transactional mode ({@code transactions.enabled}): its
 * {@code retention.ms} against the lease and its {@code cleanup.policy}. The doctor itself does not connect to Kafka
 * ({@link #NOT_CHECKED}); a check that asks the cluster (Kafka's Admin client) plugs in here.
 */
@FunctionalInterface
public interface ProgressTopicCheck {
  /** Reports the topic as not checked: the doctor does not connect to Kafka. */
  ProgressTopicCheck NOT_CHECKED = transport -> List.of(Finding.info("kafka-progress-topic", "transport '"
      + transport.name() + "': not checked: the doctor does not connect to Kafka to read the progress topic's"
      + " retention.ms and cleanup.policy", "compare them with docs/transport-kafka.md (kafka-configs --describe"
      + " --topic <progress topic>)"));

  /**
   * @param transport a Kafka transport with {@code transactions.enabled: true}
   * @return what was found
   */
  List<Finding> check(RelayConfig.TransportSettings transport);
}
