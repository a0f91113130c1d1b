package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InMemoryTransaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;

/**
 * What a real consumer received from a topic, checked against what was written to the outbox: every id arrived,
 * and each key's messages arrived in the order they were written. Duplicates (at-least-once) are counted, not hidden.
 */
final class Arrivals {
  private final Set<String> ids = new HashSet<>();
  private final Map<String, LinkedHashSet<String>> idsByKey = new LinkedHashMap<>();
  private int records;

  /**
   * @param topic the destination
   * @param count how many messages
   * @param keys how many distinct ordering keys, round robin; 0 for no key
   * @return the messages, in write order
   */
  static List<Message> messages(String topic, int count, int keys) {
    List<Message> messages = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Message.Builder builder = Message.builder().withDestination(topic)
          .withPayload(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
          .withContentType("application/json");
      if (keys > 0) {
        builder.withOrderingKey("key-" + (i % keys));
      }
      messages.add(builder.build());
    }
    return messages;
  }

  /** Writes the messages into the store in committed transactions of up to 500, in list order. */
  static void writeAll(InMemoryOutboxStore store, List<Message> messages) {
    for (int from = 0; from < messages.size(); from += 500) {
      InMemoryTransaction transaction = store.begin();
      store.outbox().writeAll(transaction, messages.subList(from, Math.min(messages.size(), from + 500)));
      transaction.commit();
    }
  }

  /**
   * Polls until every expected id arrived or the timeout passed.
   *
   * @return this
   */
  Arrivals pollUntilAll(KafkaConsumer<byte[], byte[]> consumer, int expected, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (ids.size() < expected && System.nanoTime() < deadline) {
      poll(consumer);
    }
    return this;
  }

  /** One poll of at most 200 ms. */
  void poll(KafkaConsumer<byte[], byte[]> consumer) {
    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
      records++;
      Header idHeader = record.headers().lastHeader(KafkaTransport.DEFAULT_MESSAGE_ID_HEADER);
      String id = new String(idHeader.value(), StandardCharsets.UTF_8);
      ids.add(id);
      String key = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
      idsByKey.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(id); // first arrival keeps its place
    }
  }

  /** @return distinct ids received */
  int distinct() {
    return ids.size();
  }

  /** @return records received, duplicates included */
  int records() {
    return records;
  }

  /** Asserts that exactly the sent ids arrived and that each key's first arrivals follow write order. */
  void assertAllArrivedInKeyOrder(List<Message> sent) {
    Set<String> expected = new HashSet<>();
    Map<String, List<String>> expectedByKey = new LinkedHashMap<>();
    for (Message message : sent) {
      expected.add(message.id().toString());
      expectedByKey.computeIfAbsent(message.orderingKey().orElse(""), k -> new ArrayList<>())
          .add(message.id().toString());
    }
    assertThat(ids).as("ids that arrived").hasSize(expected.size()).isEqualTo(expected);
    expectedByKey.forEach((key, order) -> {
      if (!key.isEmpty()) {
        assertThat(new ArrayList<>(idsByKey.get(key))).as("arrival order of key " + key).isEqualTo(order);
      }
    });
  }
}
