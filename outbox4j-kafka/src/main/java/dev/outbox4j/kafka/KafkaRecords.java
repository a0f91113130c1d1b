package dev.outbox4j.kafka;

import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.jspecify.annotations.Nullable;

/**
 * Turns a message into its Kafka record: the one record layout both the plain producer and the transactional lane
 * send (topic from the mapping, ordering key as record key, payload or CloudEvents value, headers then content type
 * then message id). Kept apart so the two paths cannot drift.
 *
 * <p>Immutable and thread-safe when the topic mapping is.
 */
final class KafkaRecords {
  private final Function<Message, String> topicMapping;
  private final String messageIdHeader;
  private final String contentTypeHeader;

  KafkaRecords(Function<Message, String> topicMapping, String messageIdHeader, String contentTypeHeader) {
    this.topicMapping = topicMapping;
    this.messageIdHeader = messageIdHeader;
    this.contentTypeHeader = contentTypeHeader;
  }

  /**
   * @param message the message
   * @param event its CloudEvents attributes, or {@code null} for the plain layout
   * @return the record, timestamped by the producer
   * @throws UnroutableException if the topic mapping throws or gives no topic (a permanent failure of this message)
   */
  ProducerRecord<byte[], byte[]> recordOf(Message message, @Nullable CloudEvent event) throws UnroutableException {
    String topic;
    try {
      topic = topicMapping.apply(message);
    } catch (RuntimeException e) {
      throw new UnroutableException("topic mapping failed: " + KafkaFailureClassifier.describe(e));
    }
    if (topic == null || topic.isBlank()) {
      throw new UnroutableException("topic mapping gave no topic for destination " + message.destination());
    }
    byte[] key = message.orderingKey().map(k -> k.getBytes(StandardCharsets.UTF_8)).orElse(null);
    return event == null
        ? new ProducerRecord<>(topic, null, null, key, message.payload(), headersOf(message))
        : new ProducerRecord<>(topic, null, null, key, KafkaCloudEventsBinding.value(message, event),
            cloudEventHeadersOf(message, event));
  }

  private List<Header> headersOf(Message message) {
    List<Header> headers = new ArrayList<>(message.headers().size() + 2);
    message.headers().forEach((name, value) -> {
      if (!name.equals(messageIdHeader) && !name.equals(contentTypeHeader)) {
        headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8)));
      }
    });
    headers.add(new RecordHeader(contentTypeHeader, message.contentType().getBytes(StandardCharsets.UTF_8)));
    headers.add(new RecordHeader(messageIdHeader, message.id().toString().getBytes(StandardCharsets.UTF_8)));
    return headers;
  }

  private List<Header> cloudEventHeadersOf(Message message, CloudEvent event) {
    List<Header> headers = new ArrayList<>(message.headers().size() + 12);
    message.headers().forEach((name, value) -> {
      if (!name.equals(messageIdHeader) && !KafkaCloudEventsBinding.isBindingHeader(name)) {
        headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8)));
      }
    });
    KafkaCloudEventsBinding.writeHeaders(headers, event);
    headers.add(new RecordHeader(messageIdHeader, message.id().toString().getBytes(StandardCharsets.UTF_8)));
    return headers;
  }

  /** The message has no topic; its {@linkplain #getMessage() message} is the reason, never a payload. */
  static final class UnroutableException extends Exception {
    private static final long serialVersionUID = 1L;

    UnroutableException(String reason) {
      super(reason, null, false, false);
    }
  }
}
