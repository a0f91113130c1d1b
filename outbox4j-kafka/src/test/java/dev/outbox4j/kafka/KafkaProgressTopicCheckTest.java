package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.Outgoing;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The progress retention's lower bound, and the check of an existing progress topic's cleanup policy and retention:
 * what is refused names its setting, what is only risky is reported as a warning.
 */
class KafkaProgressTopicCheckTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Map<String, String> TIMESTAMPS = Map.of("message.timestamp.type", "CreateTime",
      "message.timestamp.before.max.ms", "10000");

  private final EmbeddedKafka kafka = EmbeddedKafka.shared();

  private static Map<String, String> with(Map<String, String> more) {
    Map<String, String> all = new java.util.HashMap<>(TIMESTAMPS);
    all.putAll(more);
    return all;
  }

  @Test
  void a_progress_retention_below_a_hundred_answer_times_is_refused_naming_the_key() {
    KafkaTransactions defaults = KafkaTransactions.ofDefaults();
    assertThat(defaults.minimumProgressRetention()).isEqualTo(Duration.ofSeconds(26 * 100));
    assertThat(KafkaTransactions.builder().withProgressRetention(Duration.ofSeconds(2600)).build()
        .progressRetention()).isEqualTo(Duration.ofSeconds(2600));

    assertThatThrownBy(() -> KafkaTransactions.builder().withProgressRetention(Duration.ofSeconds(2599)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("progressRetention")
        .hasMessageContaining("PT43M20S");
    assertThatThrownBy(() -> KafkaTransactions.builder().withProgressRetention(Duration.ofHours(2))
        .withTimeout(Duration.ofMinutes(2)).build())
        .as("the bound follows maxAnswerTime").isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("progressRetention");
    assertThatThrownBy(() -> KafkaTransport.fromProperties(Map.of("bootstrap.servers", kafka.bootstrapServers(),
        "transactions.enabled", "true", "transactions.progress-retention", "30m")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transactions.progress-retention")
        .hasMessageContaining("100 x maxAnswerTime");
  }

  @Test
  void the_check_refuses_compaction_and_a_short_retention_and_warns_about_a_shorter_one_or_a_size_limit() {
    KafkaTransactions settings = KafkaTransactions.ofDefaults();
    Map<String, String> fit = with(Map.of("cleanup.policy", "delete", "retention.ms", "604800000",
        "retention.bytes", "-1"));
    assertThat(ProgressTopicCheck.check(settings, fit)).isEmpty();
    assertThat(ProgressTopicCheck.check(settings, with(Map.of("cleanup.policy", "delete", "retention.ms", "-1"))))
        .as("kept forever").isEmpty();

    assertThat(ProgressTopicCheck.check(settings, with(Map.of("cleanup.policy", "compact,delete",
        "retention.ms", "604800000")))).singleElement().satisfies(finding -> {
          assertThat(finding.severity()).isEqualTo(ProgressTopicCheck.Severity.REFUSED);
          assertThat(finding.setting()).isEqualTo("cleanup.policy");
          assertThat(finding.text()).contains("cleanup.policy=compact,delete", "must be delete");
        });
    assertThat(ProgressTopicCheck.check(settings, with(Map.of("cleanup.policy", "delete", "retention.ms", "60000"))))
        .singleElement().satisfies(finding -> {
          assertThat(finding.severity()).isEqualTo(ProgressTopicCheck.Severity.REFUSED);
          assertThat(finding.text()).contains("retention.ms=60000", "at least 2600000 ms");
        });
    assertThat(ProgressTopicCheck.check(settings, with(Map.of("cleanup.policy", "delete", "retention.ms", "86400000",
        "retention.bytes", "1048576"))))
        .extracting(ProgressTopicCheck.Finding::severity, ProgressTopicCheck.Finding::setting)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(ProgressTopicCheck.Severity.WARNING, "retention.ms"),
            org.assertj.core.groups.Tuple.tuple(ProgressTopicCheck.Severity.WARNING, "retention.bytes"));
  }

  @Test
  void an_existing_topic_that_compacts_or_keeps_too_little_is_refused_and_one_that_keeps_less_than_asked_is_used()
      throws Exception {
    String topic = "check-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    String compacted = "progress-compact-" + UUID.randomUUID();
    kafka.createTopic(compacted, 1, with(Map.of("cleanup.policy", "compact")));
    String brief = "progress-brief-" + UUID.randomUUID();
    kafka.createTopic(brief, 1, with(Map.of("retention.ms", "60000")));
    String shorter = "progress-shorter-" + UUID.randomUUID();
    kafka.createTopic(shorter, 1, with(Map.of("retention.ms", "86400000")));

    for (String[] refused : List.of(new String[] {compacted, "cleanup.policy"}, new String[] {brief, "retention.ms"})) {
      try (KafkaTransport transport = transport(refused[0])) {
        assertThat(transport.checkProgressTopic()).singleElement().satisfies(finding -> {
          assertThat(finding.severity()).isEqualTo(ProgressTopicCheck.Severity.REFUSED);
          assertThat(finding.setting()).isEqualTo(refused[1]);
        });
        assertThat(deliver(transport, topic)).isInstanceOf(BatchOutcome.Aborted.class).asString()
            .contains(refused[0], refused[1]);
      }
    }
    try (KafkaTransport transport = transport(shorter)) {
      assertThat(transport.checkProgressTopic()).extracting(ProgressTopicCheck.Finding::severity)
          .containsExactly(ProgressTopicCheck.Severity.WARNING);
      assertThat(deliver(transport, topic)).isEqualTo(BatchOutcome.committed());
    }
    try (KafkaTransport transport = transport("progress-missing-" + UUID.randomUUID())) {
      assertThat(transport.checkProgressTopic()).as("created at first use").isEmpty();
    }
  }

  private KafkaTransport transport(String progressTopic) {
    return KafkaTransport.builder().withBootstrapServers(kafka.bootstrapServers())
        .withTransactions(KafkaTransactions.builder().withProgressTopic(progressTopic).build()).build();
  }

  private static BatchOutcome deliver(KafkaTransport transport, String topic) throws Exception {
    Message message = Message.builder().withDestination(topic).withOrderingKey("k").withPayload("p").build();
    return transport.lane().deliverAll(List.of(new Outgoing(message, null)), Instant.now()).toCompletableFuture()
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }
}
