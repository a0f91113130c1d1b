package dev.outbox4j.kafka.connect;

import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Destination to topic: an explicit mapping first, else a pattern in which {@code ${destination}} stands for the
 * destination. A topic that is not a legal Kafka topic name is reported, not sent: its entry is quarantined.
 *
 * <p>Immutable and thread-safe.
 */
final class TopicMapping {
  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]+");
  private static final int MAX_TOPIC_LENGTH = 249;

  private final Map<String, String> explicit;
  private final String pattern;

  TopicMapping(Map<String, String> explicit, String pattern) {
    this.explicit = Map.copyOf(explicit);
    this.pattern = pattern;
  }

  /**
   * @param destination the message's destination
   * @return the topic, legal or not (check with {@link #topicNameProblem})
   */
  String topicOf(String destination) {
    String topic = explicit.get(destination);
    return topic != null ? topic : pattern.replace(OutboxSourceConfig.DESTINATION_PLACEHOLDER, destination);
  }

  /**
   * @param topic a topic name
   * @return what makes it illegal as a Kafka topic name, or {@code null} when it is legal
   */
  static @Nullable String topicNameProblem(String topic) {
    if (topic.isEmpty()) {
      return "is empty";
    }
    if (topic.length() > MAX_TOPIC_LENGTH) {
      return "is " + topic.length() + " characters long, at most " + MAX_TOPIC_LENGTH + " allowed";
    }
    if (topic.equals(".") || topic.equals("..")) {
      return "is '" + topic + "', which is reserved";
    }
    if (!LEGAL.matcher(topic).matches()) {
      return "is '" + topic + "', which has characters other than ASCII letters, digits, '.', '_' and '-'";
    }
    return null;
  }
}
