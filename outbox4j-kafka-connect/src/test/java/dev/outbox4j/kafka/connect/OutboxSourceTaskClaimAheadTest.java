package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connector's only task claims its next batch while Connect commits the last one, hands it to Connect only once the
 * last one is retired, and hands it back when stopped; with more tasks, no task claims ahead. Against a real H2 outbox,
 * the task driven as Connect drives it (poll, a report per committed record, commit).
 */
class OutboxSourceTaskClaimAheadTest {
  private final TaskOnH2 outbox = new TaskOnH2().with(OutboxSourceConfig.BATCH_SIZE, "10");
  private final List<OutboxSourceTask> started = new ArrayList<>();

  @AfterEach
  void stop() throws SQLException {
    started.forEach(OutboxSourceTask::stop);
    outbox.close();
  }

  private OutboxSourceTask start(int tasks) {
    OutboxSourceTask task = outbox.with(OutboxSourceTask.SLOTS, Integer.toString(tasks)).start(null);
    started.add(task);
    return task;
  }

  /** @return the entries under an unexpired claim, read without claiming */
  private long inFlight() {
    return outbox.store.stats(outbox.clock.instant()).inFlight();
  }

  /** Connect's part of a poll with exactly once: the transaction commits, each record is reported, then commit(). */
  private static void commitAll(OutboxSourceTask task, List<SourceRecord> records) {
    for (SourceRecord record : records) {
      task.commitRecord(record, null);
    }
    task.commit();
  }

  private static List<String> payloads(List<SourceRecord> records) {
    return records.stream().map(r -> new String((byte[]) r.value(), StandardCharsets.UTF_8)).toList();
  }

  @Test
  void the_only_task_claims_the_next_batch_meanwhile_and_sends_it_after_the_last_is_retired()
      throws InterruptedException, SQLException {
    List<Message> messages = outbox.write(30, 15); // two entries of each key: the second waits for the first
    OutboxSourceTask task = start(1);

    List<SourceRecord> first = task.poll();
    assertThat(first).hasSize(10);
    // no poll since: the task's own thread claims the next 10 while "Connect" has not committed the first
    await("the claim ahead").atMost(Duration.ofSeconds(30)).until(() -> inFlight() == 20);
    assertThat(task.poll()).as("nothing reaches Connect before the last batch is retired").isNullOrEmpty();

    commitAll(task, first);
    List<SourceRecord> second = task.poll();
    assertThat(second).hasSize(10);
    commitAll(task, second);
    List<SourceRecord> third = task.poll();
    assertThat(third).hasSize(10);
    commitAll(task, third);
    assertThat(task.poll()).isNullOrEmpty();

    List<String> sent = new ArrayList<>(payloads(first));
    sent.addAll(payloads(second));
    sent.addAll(payloads(third));
    assertThat(sent).containsExactlyInAnyOrderElementsOf(
        messages.stream().map(m -> new String(m.payload(), StandardCharsets.UTF_8)).toList());
    for (int k = 0; k < 15; k++) { // each key's entries in commit order across the three batches
      String key = "k" + k + ":";
      List<Integer> ofKey = sent.stream().filter(p -> p.startsWith(key))
          .map(p -> Integer.parseInt(p.substring(key.length()))).toList();
      assertThat(ofKey).as(key).containsExactly(k, k + 15);
    }
    await("every entry retired").atMost(Duration.ofSeconds(30)).until(() -> outbox.store.stats(
        outbox.clock.instant()).waiting() == 0);
  }

  @Test
  void a_stopped_task_hands_its_batch_claimed_ahead_back_at_once() throws InterruptedException, SQLException {
    outbox.write(20, 20);
    OutboxSourceTask task = start(1);
    assertThat(task.poll()).hasSize(10);
    await("the claim ahead").atMost(Duration.ofSeconds(30)).until(() -> inFlight() == 20);

    task.stop();
    started.remove(task);

    assertThat(inFlight()).as("only the batch handed to Connect stays claimed").isEqualTo(10);
    assertThat(outbox.store.claim(20, outbox.clock.instant(), TaskOnH2.LEASE, 100))
        .as("the batch claimed ahead is claimable at once").hasSize(10);
  }

  @Test
  void with_more_tasks_no_task_claims_ahead() throws InterruptedException, SQLException {
    outbox.write(30, 30);
    OutboxSourceTask many = start(2);
    Set<String> before = claimingThreads();

    assertThat(many.poll()).hasSize(10);

    // a claim ahead starts its thread inside the poll, on the poll's thread: none started
    assertThat(claimingThreads()).isEqualTo(before);
    assertThat(inFlight()).isEqualTo(10);

    OutboxSourceTask only = start(1);
    assertThat(only.poll()).hasSize(10);
    assertThat(claimingThreads()).as("the connector's only task claims ahead").hasSize(before.size() + 1);
  }

  private static Set<String> claimingThreads() {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
        .filter(name -> name.startsWith(NextBatch.THREAD_NAME)).collect(Collectors.toSet());
  }
}
