package dev.outbox4j.kafka.connect;

import dev.outbox4j.Message;
import dev.outbox4j.spi.Claim;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns a claimed entry into its source record: topic from the {@link TopicMapping}, the ordering key as a string key
 * (none for an unkeyed message), the payload as bytes (for {@code ByteArrayConverter}, or any converter that takes
 * bytes), and as headers the message's own headers (trace context included), then its content type and its id.
 *
 * <p>An entry that cannot become a record Kafka accepts (its topic is no legal topic name, or the record would be
 * larger than {@code max.record.bytes}) is refused here ({@link #refusal}), before Connect sees it: once inside the task's transaction,
 * a refused record would fail the whole transaction and the task with it.
 *
 * <p>Immutable and thread-safe.
 */
final class OutboxRecords {
  /** Per-record bytes besides key, value and headers in a record batch (lengths, timestamp delta, attributes). */
  private static final int RECORD_OVERHEAD = 64;

  private final TopicMapping topics;
  private final String messageIdHeader;
  private final String contentTypeHeader;
  private final int maxRecordBytes;

  OutboxRecords(TopicMapping topics, String messageIdHeader, String contentTypeHeader, int maxRecordBytes) {
    this.topics = topics;
    this.messageIdHeader = messageIdHeader;
    this.contentTypeHeader = contentTypeHeader;
    this.maxRecordBytes = maxRecordBytes;
  }

  /**
   * @param claim the claimed entry
   * @return why the entry cannot become a record Kafka accepts, or empty when it can
   */
  Optional<String> refusal(Claim claim) {
    Message message = claim.message();
    String problem = TopicMapping.topicNameProblem(topics.topicOf(message.destination()));
    if (problem != null) {
      return Optional.of("destination " + message.destination() + " maps to a topic that " + problem);
    }
    int size = sizeOf(message);
    if (size > maxRecordBytes) {
      return Optional.of("record of " + size + " bytes exceeds " + OutboxSourceConfig.MAX_RECORD_BYTES + " ("
          + maxRecordBytes + ")");
    }
    return Optional.empty();
  }

  /**
   * @param claim a claimed entry that {@link #refusal} accepts
   * @param partition the task's source partition
   * @param offset the poll's source offset
   * @return the record
   */
  SourceRecord recordOf(Claim claim, Map<String, ?> partition, Map<String, ?> offset) {
    Message message = claim.message();
    ConnectHeaders headers = new ConnectHeaders();
    message.headers().forEach((name, value) -> {
      if (!name.equals(messageIdHeader) && !name.equals(contentTypeHeader)) {
        headers.addString(name, value);
      }
    });
    headers.addString(contentTypeHeader, message.contentType());
    headers.addString(messageIdHeader, message.id().toString());
    return new SourceRecord(partition, offset, topics.topicOf(message.destination()), null,
        Schema.OPTIONAL_STRING_SCHEMA, message.orderingKey().orElse(null), Schema.OPTIONAL_BYTES_SCHEMA,
        message.payload(), null, headers);
  }

  /** @return the header that carries the message id */
  String messageIdHeader() {
    return messageIdHeader;
  }

  private int sizeOf(Message message) {
    long size = RECORD_OVERHEAD + message.payloadSize()
        + message.orderingKey().map(key -> key.getBytes(StandardCharsets.UTF_8).length).orElse(0)
        + utf8Length(messageIdHeader) + 36 + utf8Length(contentTypeHeader) + utf8Length(message.contentType());
    for (Map.Entry<String, String> header : message.headers().entrySet()) {
      size += utf8Length(header.getKey()) + utf8Length(header.getValue()) + 4;
    }
    return (int) Math.min(Integer.MAX_VALUE, size);
  }

  private static int utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }
}
