package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's decisions, on a ticker the test moves: who waits for whom, and for how long. No real time decides
 * anything here.
 */
class FairShareTest {
  private static final Duration TURN = Duration.ofMillis(50);
  private static final Duration MAX_HOLD = Duration.ofMillis(100);
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final Duration HALF_LIFE = Duration.ofSeconds(1);
  private static final int IN_FLIGHT = 4;

  private final AtomicLong ticker = new AtomicLong(1_000_000_000L);
  private final FairShare share = new FairShare(ticker::get, TURN, MAX_HOLD, WINDOW, HALF_LIFE, IN_FLIGHT);

  @Test
  void a_busy_outbox_alone_never_waits() {
    FairShare.Lane busy = share.join("busy");
    dispatch(busy, 1000);
    assertThat(busy.mustWait(now(), now(), true)).isFalse();
    assertThat(busy.mustWait(now(), now(), false)).isFalse();
  }

  @Test
  void a_busy_outbox_waits_while_a_woken_quiet_outbox_has_its_turn_and_goes_on_when_its_pass_ends() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    quiet.woken();
    assertThat(busy.mustWait(now(), now(), true)).as("a send").isTrue();
    assertThat(busy.mustWait(now(), now(), false)).as("a claim or a completion").isTrue();
    assertThat(quiet.mustWait(now(), now(), true)).as("the quiet outbox never waits for the busy one").isFalse();
    quiet.passEnded();
    assertThat(busy.mustWait(now(), now(), false)).isFalse();
  }

  @Test
  void a_quiet_outbox_sending_has_a_turn_too() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    dispatch(quiet, 1);
    assertThat(busy.mustWait(now(), now(), false)).isTrue();
  }

  @Test
  void a_turn_ends_by_itself_when_the_pass_does_not_say_so() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    quiet.woken(); // a claim that finds nothing ends no batch
    advance(TURN.minusMillis(1));
    assertThat(busy.mustWait(now(), now(), false)).isTrue();
    advance(Duration.ofMillis(1));
    assertThat(busy.mustWait(now(), now(), false)).isFalse();
  }

  @Test
  void one_wait_lasts_at_most_the_longest_hold() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    long since = now();
    for (int i = 0; i < 10; i++) {
      quiet.woken(); // a quiet outbox woken again and again
      advance(Duration.ofMillis(10));
    }
    assertThat(busy.mustWait(now(), since, false)).isFalse();
    assertThat(busy.mustWait(now(), now(), false)).as("the next wait").isTrue();
  }

  @Test
  void two_equally_busy_outboxes_never_hold_each_other_back() {
    FairShare.Lane one = share.join("one");
    FairShare.Lane two = share.join("two");
    dispatch(one, 100);
    dispatch(two, 80);
    assertThat(one.mustWait(now(), now(), true)).isFalse();
    assertThat(two.mustWait(now(), now(), true)).isFalse();
  }

  @Test
  void beside_a_lighter_active_outbox_a_busy_one_keeps_a_few_sends_in_flight_and_no_more() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    List<CompletableFuture<DeliveryOutcome>> sends = new ArrayList<>();
    Transport held = message -> {
      CompletableFuture<DeliveryOutcome> send = new CompletableFuture<>();
      sends.add(send);
      return send;
    };
    Transport counting = busy.counting(held);
    dispatch(busy, 100);
    dispatch(quiet, 1);
    quiet.passEnded();
    for (int i = 0; i < IN_FLIGHT; i++) {
      counting.deliver(message());
    }
    assertThat(busy.mustWait(now(), now(), true)).as("a send at the bound").isTrue();
    assertThat(busy.mustWait(now(), now(), false)).as("a connection is not a send").isFalse();
    sends.get(0).complete(DeliveryOutcome.delivered());
    assertThat(busy.mustWait(now(), now(), true)).as("one answered").isFalse();
    counting.deliver(message());
    advance(WINDOW);
    assertThat(busy.mustWait(now(), now(), true)).as("the quiet outbox idle for the window").isFalse();
  }

  @Test
  void an_outbox_held_back_long_enough_becomes_the_lighter_one_and_goes_first() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    for (int i = 0; i < 20; i++) {
      dispatch(quiet, 10); // the quiet outbox turns busy while the first one waits
      advance(Duration.ofMillis(250));
    }
    assertThat(quiet.mustWait(now(), now(), false)).as("no turn of the other yet").isFalse();
    busy.woken();
    assertThat(quiet.mustWait(now(), now(), false)).isTrue();
    assertThat(busy.mustWait(now(), now(), false)).isFalse();
  }

  @Test
  void a_closed_outbox_holds_nobody() {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    quiet.woken();
    quiet.close();
    assertThat(busy.mustWait(now(), now(), true)).isFalse();
  }

  @Test
  void a_held_dispatch_runs_on_its_own_thread_once_the_lighter_outbox_pass_ends() throws Exception {
    FairShare.Lane busy = share.join("busy");
    FairShare.Lane quiet = share.join("quiet");
    dispatch(busy, 100);
    quiet.woken();
    CountDownLatch ran = new CountDownLatch(1);
    Thread worker = new Thread(() -> busy.executor().execute(ran::countDown), "busy-worker");
    worker.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> share.waiting("busy") == 1);
    assertThat(ran.getCount()).as("held while the quiet outbox's pass runs").isEqualTo(1);
    quiet.passEnded();
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    worker.join(10_000);
    assertThat(share.waiting("busy")).isZero();
  }

  private void dispatch(FairShare.Lane lane, int sends) {
    for (int i = 0; i < sends; i++) {
      lane.executor().execute(() -> {});
    }
  }

  private long now() {
    return ticker.get();
  }

  private void advance(Duration duration) {
    ticker.addAndGet(duration.toNanos());
  }

  private static Message message() {
    return Message.builder().withDestination("d").withPayload("p").build();
  }
}
