package dev.outbox4j.relay.doctor;

import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.doctor.Finding;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks the Kafka cluster, through the transport's own admin client, for the settings of a transactional transport's
 * progress topic, judged as the transport judges them ({@link KafkaTransport#checkProgressTopic()}): a setting the
 * transport refuses is {@link Finding.Level#UNSAFE} (every batch of that transport fails until it is fixed), one it
 * warns about is {@link Finding.Level#INFO}. A cluster that cannot be asked is reported, not failed: the database's
 * findings still stand. Each call builds the transport from the relay's settings and closes it. Thread-safe.
 */
final class KafkaProgressTopicCheck implements ProgressTopicCheck {
  private static final String CHECK = "kafka-progress-topic";

  @Override
  public List<Finding> check(RelayConfig.TransportSettings transport) {
    String name = "transport '" + transport.name() + "': ";
    try (KafkaTransport kafka = KafkaTransport.fromProperties(transport.properties())) {
      List<Finding> findings = new ArrayList<>();
      for (dev.outbox4j.kafka.ProgressTopicCheck.Finding found : kafka.checkProgressTopic()) {
        String fix = "set " + found.setting() + " on the progress topic as docs/transport-kafka.md says";
        findings.add(found.severity() == dev.outbox4j.kafka.ProgressTopicCheck.Severity.REFUSED
            ? Finding.unsafe(CHECK, name + found.text(), fix)
            : Finding.info(CHECK, name + found.text(), fix));
      }
      return findings.isEmpty()
          ? List.of(Finding.ok(CHECK, name + "the progress topic's settings are fit for use (or it does not exist yet;"
              + " the transport creates it with the right ones)"))
          : findings;
    } catch (OutboxException | IllegalArgumentException | IllegalStateException e) {
      return List.of(Finding.info(CHECK, name + "not checked: " + e.getMessage(),
          "run doctor where the relay reaches its Kafka cluster"));
    }
  }
}
