package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InMemoryTransaction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a real consumer received in an end-to-end test (outbox → relay → broker → consumer), and the checks that matter:
 * everything sent arrived, nothing was invented, and each ordering key's messages arrived in the order they were
 * written.
 *
 * <p>Messages come from {@link #writeBacklog}: payload {@code "<key>:<n>"}, where {@code n} counts up within the key.
 * Delivery is at-least-once, so a message may arrive twice after an outage; order is judged on each message's
 * <em>first</em> arrival, which is the one a deduplicating consumer acts on.
 *
 * <p>Thread-safe: consumers may {@link #record} from any thread.
 */
public final class ConsumerLedger {
  private final Map<String, String> firstArrivals = new ConcurrentHashMap<>();
  private final Map<String, List<Integer>> firstOrderByKey = new HashMap<>();
  private final AtomicInteger arrivals = new AtomicInteger();

  /**
   * Makes {@code count} messages spread round-robin over {@code keys} ordering keys, payload {@code "<key>:<n>"}, each
   * with a W3C {@code traceparent} header.
   *
   * @param destination the destination of every message
   * @param count how many
   * @param keys how many distinct ordering keys
   * @return the messages, in the order to write them
   */
  public static List<Message> backlog(String destination, int count, int keys) {
    List<Message> messages = new ArrayList<>(count);
    int[] next = new int[keys];
    for (int i = 0; i < count; i++) {
      int key = i % keys;
      String orderingKey = "key-" + key;
      messages.add(Message.builder()
          .withDestination(destination)
          .withOrderingKey(orderingKey)
          .withPayload(orderingKey + ":" + next[key]++)
          .withContentType("text/plain")
          .withHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
          .build());
    }
    return messages;
  }

  /**
   * Writes a {@link #backlog} to an in-memory store, committed in transactions of 500.
   *
   * @param store the store
   * @param destination the destination of every message
   * @param count how many
   * @param keys how many distinct ordering keys
   * @return the messages in commit order
   */
  public static List<Message> writeBacklog(InMemoryOutboxStore store, String destination, int count, int keys) {
    List<Message> written = backlog(destination, count, keys);
    for (int from = 0; from < written.size(); from += 500) {
      InMemoryTransaction transaction = store.begin();
      store.outbox().writeAll(transaction, written.subList(from, Math.min(from + 500, written.size())));
      transaction.commit();
    }
    return written;
  }

  /**
   * Records one arrival.
   *
   * @param messageId the message id the broker carried
   * @param payload the payload as received
   */
  public void record(String messageId, byte[] payload) {
    arrivals.incrementAndGet();
    String text = new String(payload, StandardCharsets.UTF_8);
    if (firstArrivals.putIfAbsent(messageId, text) == null) {
      int colon = text.lastIndexOf(':');
      String key = text.substring(0, colon);
      int n = Integer.parseInt(text.substring(colon + 1));
      synchronized (firstOrderByKey) {
        firstOrderByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(n);
      }
    }
  }

  /** @return distinct message ids received so far */
  public int uniqueCount() {
    return firstArrivals.size();
  }

  /** @return arrivals so far, duplicates included */
  public int arrivalCount() {
    return arrivals.get();
  }

  /**
   * Asserts that exactly the sent messages arrived (none missing, none invented) and that each key's messages first
   * arrived in the order they were written.
   *
   * @param sent the messages written, in commit order
   */
  public void assertReceivedExactly(List<Message> sent) {
    Map<String, String> expected = new LinkedHashMap<>();
    for (Message message : sent) {
      expected.put(message.id().toString(), new String(message.payload(), StandardCharsets.UTF_8));
    }
    Set<String> arrived = Set.copyOf(firstArrivals.keySet());
    assertThat(arrived).as("message ids received").hasSameSizeAs(expected.keySet())
        .containsExactlyInAnyOrderElementsOf(expected.keySet());
    assertThat(Map.copyOf(firstArrivals)).as("payloads received").isEqualTo(expected);
    synchronized (firstOrderByKey) {
      firstOrderByKey.forEach((key, order) -> {
        List<Integer> ascending = new ArrayList<>(order);
        ascending.sort(null);
        assertThat(order).as("first-arrival order of key %s", key).isEqualTo(ascending);
      });
    }
  }
}
