package dev.outbox4j.relay.doctor;

import dev.outbox4j.jdbc.doctor.Finding;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.List;

/**
 * Checks the progress topic of a Kafka transport in the transactional mode ({@code transactions.enabled}): its
 * {@code retention.ms} against the lease and its {@code cleanup.policy}. The Kafka transport checks an existing topic
 * itself at start; this interface is where the doctor reports it.
 */
@FunctionalInterface
public interface ProgressTopicCheck {
  /** Reports the topic as not checked by the doctor (the transport checks it when it starts). */
  ProgressTopicCheck NOT_CHECKED = transport -> List.of(Finding.info("kafka-progress-topic", "transport '"
      + transport.name() + "': the progress topic's retention.ms and cleanup.policy are not checked by the doctor",
      "the Kafka transport checks them when the relay starts; see docs/transport-kafka.md"));

  /**
   * @param transport a Kafka transport with {@code transactions.enabled: true}
   * @return what was found
   */
  List<Finding> check(RelayConfig.TransportSettings transport);
}
