package dev.outbox4j.kafka.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.spi.Claim;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch claimed ahead is the poll's that takes it, or handed back: when no poll takes it within its hold (a paused
 * connector), and when the task stops. Against a real H2 outbox.
 */
class NextBatchTest {
  private final TaskOnH2 outbox = new TaskOnH2();
  private final List<Claim> handedBack = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() throws SQLException {
    outbox.close();
  }

  private NextBatch next(Duration hold) {
    return new NextBatch(0, hold, claims -> {
      handedBack.addAll(claims);
      outbox.store.release(claims);
    });
  }

  private NextBatch.Claimed claim() {
    Instant now = outbox.clock.instant();
    return new NextBatch.Claimed(outbox.store.claim(10, now, TaskOnH2.LEASE, 100), now);
  }

  private long inFlight() {
    return outbox.store.stats(outbox.clock.instant()).inFlight();
  }

  @Test
  void a_batch_no_poll_takes_within_its_hold_is_handed_back() throws SQLException {
    outbox.write(10, 10);
    NextBatch next = next(Duration.ofMillis(200));

    next.claimMeanwhile(this::claim);

    await("the hand-back").atMost(Duration.ofSeconds(30)).until(() -> handedBack.size() == 10);
    assertThat(inFlight()).isZero();
    next.close(Duration.ofSeconds(10));
  }

  @Test
  void a_batch_taken_in_time_is_the_callers_and_is_not_handed_back() throws Exception {
    outbox.write(10, 10);
    NextBatch next = next(Duration.ofMillis(300));

    next.claimMeanwhile(this::claim);
    NextBatch.Claimed taken = next.take();

    assertThat(taken).isNotNull();
    assertThat(taken.claims()).hasSize(10);
    // a non-event: wait past the hold (300 ms); an expiry the take failed to cancel would have handed them back by then
    Thread.sleep(600);
    assertThat(handedBack).isEmpty();
    assertThat(inFlight()).isEqualTo(10);
    next.close(Duration.ofSeconds(10));
  }

  @Test
  void closing_hands_back_a_batch_claimed_ahead_and_takes_no_more() throws Exception {
    outbox.write(20, 20);
    NextBatch next = next(Duration.ofHours(1));
    next.claimMeanwhile(this::claim);

    next.close(Duration.ofSeconds(10));

    assertThat(handedBack).hasSize(10);
    assertThat(inFlight()).isZero();
    next.claimMeanwhile(this::claim);
    assertThat(next.take()).as("a closed one claims nothing").isNull();
  }
}
