package dev.outbox4j.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.TopicConfig;
import org.jspecify.annotations.Nullable;

/**
 * Judges the settings of an existing progress topic against a transport's {@link KafkaTransactions}: what the
 * transactional mode refuses to use, and what it uses with a warning. The transport runs it on the topic it finds at
 * start; a tool (such as the relay's {@code doctor}) can run it on settings it read itself, or through
 * {@link KafkaTransport#checkProgressTopic()}.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li>{@code message.timestamp.type} must be {@code CreateTime} and {@code message.timestamp.before.max.ms} at most
 *       the start bound B: otherwise a frozen relay's batch could commit after its lease. <b>Refused.</b>
 *   <li>{@code cleanup.policy} must be {@code delete}: compaction removes records from the middle of the log whatever
 *       their age, leaving its start where it was, so a batch that landed could look as if it never had and be sent
 *       again. <b>Refused.</b>
 *   <li>{@code retention.ms} must be at least {@link KafkaTransactions#minimumProgressRetention()} (or {@code -1}):
 *       shorter, entries left in doubt over a few leases would be quarantined as "can no longer be told".
 *       <b>Refused.</b>
 *       Shorter than the configured {@code progress-retention}: a <b>warning</b> (the topic's setting is what holds).
 *   <li>{@code retention.bytes} set (not {@code -1}): a <b>warning</b>, as it deletes records by size whatever their
 *       age.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class ProgressTopicCheck {
  private ProgressTopicCheck() {}

  /** How much a finding matters. */
  public enum Severity {
    /** The transport does not use the topic: every batch fails (as the cluster being unavailable) until it is fixed. */
    REFUSED,
    /** The transport uses the topic; the finding says what it costs. */
    WARNING
  }

  /**
   * One finding about the progress topic.
   *
   * @param severity whether the transport refuses the topic or warns
   * @param setting the topic setting at fault, such as {@code cleanup.policy}
   * @param text what is wrong, what it costs and the value that fixes it; names no secret
   */
  public record Finding(Severity severity, String setting, String text) {
    /** @throws NullPointerException if any part is {@code null} */
    public Finding {
      Objects.requireNonNull(severity, "severity");
      Objects.requireNonNull(setting, "setting");
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * @param settings the transactional settings the topic is judged against
   * @param config the topic's settings as the brokers report them (name → value; a missing name counts as unset)
   * @return the findings, refusals first; empty when the topic is fit for use
   */
  public static List<Finding> check(KafkaTransactions settings, Map<String, String> config) {
    String topic = settings.progressTopic();
    List<Finding> refused = new ArrayList<>();
    List<Finding> warned = new ArrayList<>();
    String type = config.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG);
    if (!"CreateTime".equals(type)) {
      refused.add(new Finding(Severity.REFUSED, TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "the progress topic "
          + topic + " has " + TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG + "=" + shown(type)
          + "; it must be CreateTime, so that the broker checks each progress record's claim time"));
    }
    String before = config.get(TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG);
    long bound = settings.startBound().toMillis();
    if (number(before, Long.MAX_VALUE) > bound) {
      refused.add(new Finding(Severity.REFUSED, TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
          "the progress topic " + topic + " has " + TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + "="
          + shown(before) + "; it must be at most the start bound (" + bound + " ms), or a late batch could commit"
          + " after its lease"));
    }
    String policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    List<String> policies = policy == null ? List.of() : Arrays.stream(policy.split(",")).map(String::trim).toList();
    if (!policies.equals(List.of(TopicConfig.CLEANUP_POLICY_DELETE))) {
      refused.add(new Finding(Severity.REFUSED, TopicConfig.CLEANUP_POLICY_CONFIG, "the progress topic " + topic
          + " has " + TopicConfig.CLEANUP_POLICY_CONFIG + "=" + shown(policy) + "; it must be delete: compaction"
          + " removes records whatever their age without moving the log's start, so a batch that landed could look as"
          + " if it never had and be sent again"));
    }
    String retention = config.get(TopicConfig.RETENTION_MS_CONFIG);
    long retentionMs = number(retention, Long.MIN_VALUE);
    Duration minimum = settings.minimumProgressRetention();
    if (retentionMs != -1 && retentionMs < minimum.toMillis()) {
      refused.add(new Finding(Severity.REFUSED, TopicConfig.RETENTION_MS_CONFIG, "the progress topic " + topic
          + " has " + TopicConfig.RETENTION_MS_CONFIG + "=" + shown(retention) + "; it must be at least "
          + minimum.toMillis() + " ms (" + KafkaTransactions.MIN_PROGRESS_RETENTION_MULTIPLE
          + " x maxAnswerTime " + settings.maxAnswerTime() + ") or -1, or entries in doubt for a few leases would be"
          + " quarantined because whether they landed can no longer be told"));
    } else if (retentionMs != -1 && retentionMs < settings.progressRetention().toMillis()) {
      warned.add(new Finding(Severity.WARNING, TopicConfig.RETENTION_MS_CONFIG, "the progress topic " + topic
          + " has " + TopicConfig.RETENTION_MS_CONFIG + "=" + retention + ", shorter than the configured progress"
          + " retention (" + settings.progressRetention().toMillis() + " ms): the topic's setting holds, and an entry"
          + " in doubt for longer is quarantined"));
    }
    String bytes = config.get(TopicConfig.RETENTION_BYTES_CONFIG);
    if (number(bytes, -1) >= 0) {
      warned.add(new Finding(Severity.WARNING, TopicConfig.RETENTION_BYTES_CONFIG, "the progress topic " + topic
          + " has " + TopicConfig.RETENTION_BYTES_CONFIG + "=" + bytes + ": records are deleted by size whatever their"
          + " age, so an entry in doubt may be quarantined sooner than retention.ms says; set it to -1"));
    }
    refused.addAll(warned);
    return List.copyOf(refused);
  }

  private static String shown(@Nullable String value) {
    return value == null ? "(unset)" : value;
  }

  private static long number(@Nullable String value, long otherwise) {
    if (value == null) {
      return otherwise;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }
}
