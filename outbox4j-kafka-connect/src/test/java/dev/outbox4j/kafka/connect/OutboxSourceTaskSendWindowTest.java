package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task hands a batch to Connect only inside the send window of its lease, checked right before the poll returns: a
 * task that stalled after its claim (here, in the look-up of the committed offsets for entries in doubt, as a pause of
 * its JVM or a stopped process would) hands the batch back unsent. Against a real H2 outbox; time moves on a settable
 * clock that the task and the store share.
 */
class OutboxSourceTaskSendWindowTest {
  private final TaskOnH2 outbox = new TaskOnH2();
  private final OutboxSourceTask task = outbox.start(null);

  @AfterEach
  void stop() throws SQLException {
    task.stop();
    outbox.close();
  }

  /** A task that died holding them: its lease ends, and the entries come back in doubt. */
  private void leaveInDoubt(int entries) {
    assertThat(outbox.store.claim(entries, outbox.clock.instant(), Duration.ofSeconds(1), 100)).hasSize(entries);
    outbox.clock.advance(Duration.ofSeconds(2));
  }

  @Test
  void a_poll_that_stalls_past_the_send_window_after_its_claim_hands_the_batch_back_unsent()
      throws InterruptedException, SQLException {
    List<Message> messages = outbox.write(10);
    leaveInDoubt(10);
    outbox.onOffsetLookUp.add(() -> outbox.clock.advance(Duration.ofSeconds(20))); // past the 15 s window

    List<SourceRecord> stalled = task.poll();

    assertThat(stalled).as("records of a batch whose send window passed").isNullOrEmpty();
    // Handed back, not left claimed until the lease ends: claimable at once, and the task's next poll sends them.
    outbox.onOffsetLookUp.clear();
    List<SourceRecord> next = task.poll();
    assertThat(next).isNotNull();
    assertThat(next.stream().map(r -> new String((byte[]) r.value(), StandardCharsets.UTF_8)).toList())
        .containsExactlyInAnyOrderElementsOf(messages.stream()
            .map(m -> new String(m.payload(), StandardCharsets.UTF_8)).toList());
  }

  @Test
  void a_poll_that_ends_inside_the_send_window_returns_its_records() throws InterruptedException, SQLException {
    outbox.write(10);
    leaveInDoubt(10);
    outbox.onOffsetLookUp.add(() -> outbox.clock.advance(Duration.ofSeconds(10))); // a pause inside the window

    assertThat(task.poll()).hasSize(10);
    assertThat(outbox.store.claim(10, outbox.clock.instant(), TaskOnH2.LEASE, 100))
        .as("the batch sent stays claimed by the task").isEmpty();
  }
}
