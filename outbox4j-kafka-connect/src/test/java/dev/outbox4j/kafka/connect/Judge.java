package dev.outbox4j.kafka.connect;

import dev.outbox4j.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.awaitility.Awaitility;

/**
 * Reads a topic as a {@code read_committed} consumer and counts what an outbox promises: every message once (none
 * lost, none invented, no duplicates), and each key's messages in the order they were written. Payloads are
 * {@code key:n}, n counting up from 0 per key.
 *
 * <p>Not thread-safe.
 */
final class Judge implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();

  Judge(EmbeddedKafka kafka, String topic) {
    consumer = kafka.consumerFromStart(topic);
  }

  /** Reads what has arrived since the last call. @return how many records have arrived in all */
  int poll() {
    consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    return records.size();
  }

  /**
   * Waits until at least {@code count} records have arrived in all.
   *
   * @param what what the wait is for, named in the failure
   * @param count the least number of records
   * @param limit the longest wait
   */
  void awaitAtLeast(String what, int count, Duration limit) {
    Awaitility.await(what + ": " + count + " records").atMost(limit).pollInterval(Duration.ofMillis(20))
        .until(() -> poll() >= count);
  }

  /**
   * Waits until at least {@code count} records have arrived in all, running {@code meanwhile} before each look (a
   * restart of the tasks that failed, say); an exception it throws (a worker not answering in a rebalance) is retried.
   *
   * @param what what the wait is for, named in the failure
   * @param count the least number of records
   * @param limit the longest wait
   * @param meanwhile what to do before each look
   */
  void awaitAtLeast(String what, int count, Duration limit, Runnable meanwhile) {
    Awaitility.await(what + ": " + count + " records").atMost(limit).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> {
          meanwhile.run();
          return poll() >= count;
        });
  }

  /**
   * Waits for {@code more} records beyond those that have arrived now, or for all {@code written} if fewer are left: a
   * wait that a fast drain cannot make unreachable (if everything written has already arrived it returns at once).
   *
   * @param what what the wait is for, named in the failure
   * @param more how many more records to wait for
   * @param written how many entries have been written in all
   * @param limit the longest wait
   */
  void awaitProgress(String what, int more, int written, Duration limit) {
    awaitAtLeast(what, Math.min(poll() + more, written), limit);
  }

  /** @return the payloads that arrived, as text, in arrival order */
  List<String> payloads() {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }

  /**
   * @param written the payloads written, {@code key:n}
   * @return the verdict
   */
  Verdict verdict(Set<String> written) {
    Set<String> seen = new HashSet<>();
    int duplicates = 0;
    int invented = 0;
    int orderViolations = 0;
    Map<String, Integer> lastPerKey = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      String payload = new String(record.value(), StandardCharsets.UTF_8);
      if (!seen.add(payload)) {
        duplicates++;
        continue;
      }
      if (!written.contains(payload)) {
        invented++;
        continue;
      }
      int colon = payload.lastIndexOf(':');
      String key = payload.substring(0, colon);
      int n = Integer.parseInt(payload.substring(colon + 1));
      Integer last = lastPerKey.put(key, n);
      if (last != null && n < last) {
        orderViolations++;
      }
      Header id = record.headers().lastHeader("message-id");
      if (id == null || record.key() == null || !new String(record.key(), StandardCharsets.UTF_8).equals(key)) {
        invented++; // the layout is wrong: no id header, or the record key is not the ordering key
      }
    }
    int lost = (int) written.stream().filter(payload -> !seen.contains(payload)).count();
    return new Verdict(records.size(), lost, invented, duplicates, orderViolations);
  }

  @Override
  public void close() {
    consumer.close();
  }

  /** What the judge found. */
  record Verdict(int received, int lost, int invented, int duplicates, int orderViolations) {}
}
