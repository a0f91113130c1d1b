package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.PlainHttpReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How the transport uses connections: a bounded number of requests per endpoint, and receivers that close each
 * connection after answering (Python's {@code http.server} by default), on the testkit's {@link PlainHttpReceiver}.
 */
class HttpConnectionsTest {
  private static final long WAIT_SECONDS = 30;

  private static PlainHttpReceiver receiver(boolean keepAlive, Duration closeDelay, boolean hold) {
    return new PlainHttpReceiver(keepAlive, 50, closeDelay, hold, HttpTransport.MESSAGE_ID_HEADER);
  }

  private static Message message(int index) {
    return Message.builder().withDestination("hook").withPayload("{\"n\":" + index + "}")
        .withContentType("application/json").build();
  }

  private static DeliveryOutcome outcomeOf(CompletableFuture<DeliveryOutcome> outcome) throws Exception {
    return outcome.get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void a_receiver_that_closes_each_connection_after_answering_gets_every_message() throws Exception {
    // the answer says HTTP/1.0 without "Connection: close", so the client pools the connection; the receiver closes it
    // 50 ms later, and the next request, sent at once, goes into it
    try (PlainHttpReceiver receiver = receiver(false, Duration.ofMillis(50), false);
        HttpTransport transport = HttpTransport.builder().withEndpoint("hook", receiver.uri()).build()) {
      List<DeliveryOutcome> outcomes = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        outcomes.add(outcomeOf(transport.deliver(message(i)).toCompletableFuture()));
      }

      assertThat(outcomes).allMatch(outcome -> outcome.equals(DeliveryOutcome.delivered()));
    }
  }

  @Test
  void at_most_the_bound_of_requests_run_at_once_to_one_endpoint_and_the_others_wait_their_turn() throws Exception {
    try (PlainHttpReceiver receiver = receiver(true, Duration.ZERO, true);
        HttpTransport transport = HttpTransport.builder().withEndpoint("hook", receiver.uri())
            .withMaxConcurrentRequests(4).build()) {
      List<CompletableFuture<DeliveryOutcome>> outcomes = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        outcomes.add(transport.deliver(message(i)).toCompletableFuture());
      }
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> receiver.running() == 4);
      receiver.release();

      for (CompletableFuture<DeliveryOutcome> outcome : outcomes) {
        assertThat(outcomeOf(outcome)).isEqualTo(DeliveryOutcome.delivered());
      }
      assertThat(receiver.mostRunning()).isEqualTo(4);
      assertThat(receiver.connections()).isLessThanOrEqualTo(4);
    }
  }

  @Test
  void a_request_waiting_its_turn_keeps_its_own_bound() throws Exception {
    // the first request holds the only slot until it times out; the second, handed over meanwhile, runs in the time
    // left of its own bound (counted from its hand-over) and is answered retryable by the client's timeout or the bound
    try (PlainHttpReceiver receiver = receiver(true, Duration.ZERO, true);
        HttpTransport transport = HttpTransport.builder().withEndpoint("hook", receiver.uri())
            .withMaxConcurrentRequests(1).withConnectTimeout(Duration.ofMillis(200))
            .withRequestTimeout(Duration.ofMillis(300)).build()) {
      CompletableFuture<DeliveryOutcome> first = transport.deliver(message(1)).toCompletableFuture();
      await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> receiver.requests() == 1);
      CompletableFuture<DeliveryOutcome> second = transport.deliver(message(2)).toCompletableFuture();

      assertThat(outcomeOf(first)).isInstanceOf(DeliveryOutcome.Retryable.class);
      assertThat(outcomeOf(second)).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
          outcome -> assertThat(outcome.reason()).contains("no response within"));
      receiver.release();
      assertThat(outcomeOf(transport.deliver(message(3)).toCompletableFuture())).isEqualTo(DeliveryOutcome.delivered());
    }
  }
}
