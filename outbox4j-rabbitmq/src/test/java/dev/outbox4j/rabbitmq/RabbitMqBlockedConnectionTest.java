package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A connection the broker stops reading, as under a memory or disk alarm: the test's {@link TcpProxy} stalls (stops
 * reading and forwarding, keeps the connection open), so the client's socket buffers fill and {@code basicPublish}
 * blocks exactly as it does against a blocked broker, without disturbing the shared broker.
 */
class RabbitMqBlockedConnectionTest {
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(1);

  private static Message big(String destination, int n) {
    return Message.builder().withDestination(destination).withPayload(new byte[256 * 1024])
        .withHeader("n", Integer.toString(n)).build();
  }

  @Test
  void publishing_into_a_connection_the_broker_does_not_read_never_blocks_the_caller_and_is_answered_by_the_bound()
      throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker();
        TcpProxy proxy = TcpProxy.start("127.0.0.1", RabbitMqTestBroker.PORT)) {
      RabbitMqTransport transport = RabbitMqTransport.builder().withPort(proxy.port())
          .withConfirmTimeout(CONFIRM_TIMEOUT).withRecoveryInterval(Duration.ofMillis(200)).build();
      try {
        assertThat(transport.deliver(big(broker.destination(), 0)).toCompletableFuture().get(30, TimeUnit.SECONDS))
            .isEqualTo(DeliveryOutcome.delivered());
        proxy.stall();

        List<CompletableFuture<DeliveryOutcome>> answers = new ArrayList<>();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
          for (int n = 1; n <= 200; n++) { // 50 MiB: far more than the socket buffers hold
            answers.add(transport.deliver(big(broker.destination(), n)).toCompletableFuture());
          }
        }, "deliver() returned for every message although the broker reads nothing");

        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
            .get(CONFIRM_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
        assertThat(answers).allSatisfy(answer ->
            assertThat(answer.join()).isInstanceOf(DeliveryOutcome.Retryable.class));
        assertTimeoutPreemptively(Duration.ofSeconds(8), transport::close, "close() returned while stalled");
      } finally {
        proxy.resume();
        transport.close();
      }
    }
  }

  @Test
  void after_the_bound_reset_the_connection_the_transport_publishes_again_once_the_broker_reads_again()
      throws Exception {
    try (RabbitMqTestBroker broker = new RabbitMqTestBroker();
        TcpProxy proxy = TcpProxy.start("127.0.0.1", RabbitMqTestBroker.PORT);
        RabbitMqTransport transport = RabbitMqTransport.builder().withPort(proxy.port())
            .withConfirmTimeout(CONFIRM_TIMEOUT).withRecoveryInterval(Duration.ofMillis(200)).build()) {
      broker.startConsuming();
      assertThat(transport.deliver(big(broker.destination(), 0)).toCompletableFuture().get(30, TimeUnit.SECONDS))
          .isEqualTo(DeliveryOutcome.delivered());
      proxy.stall();
      DeliveryOutcome stalled = transport.deliver(big(broker.destination(), 1)).toCompletableFuture()
          .get(CONFIRM_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
      proxy.resume();

      assertThat(stalled).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class,
          r -> assertThat(r.reason()).contains("no publisher confirm").contains("reset"));
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
          assertThat(transport.deliver(big(broker.destination(), 2)).toCompletableFuture().get(10, TimeUnit.SECONDS))
              .isEqualTo(DeliveryOutcome.delivered()));
    }
  }

  @Test
  void the_bound_is_the_confirm_timeout_and_bounds_the_clients_rpcs_too() {
    RabbitMqTransport.Builder builder = RabbitMqTransport.builder().withConfirmTimeout(Duration.ofSeconds(3));
    try (RabbitMqTransport transport = builder.build()) {
      assertThat(transport.maxAnswerTime()).isEqualTo(Duration.ofSeconds(3));
    }
    assertThat(builder.factory().getChannelRpcTimeout()).isEqualTo(3_000);
    try (RabbitMqTransport defaults = RabbitMqTransport.builder().build()) {
      assertThat(defaults.maxAnswerTime()).isEqualTo(RabbitMqTransport.DEFAULT_CONFIRM_TIMEOUT);
    }
  }
}
