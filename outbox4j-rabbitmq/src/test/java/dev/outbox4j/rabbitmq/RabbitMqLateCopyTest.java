package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.testkit.ConsumerLedger;
import dev.outbox4j.testkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two relays on one PostgreSQL outbox (two store instances, as two relay processes would have) publish to the real
 * broker; one of them talks to it through a {@link TcpProxy} that delays its publishes a little and the broker's
 * confirms a lot, so its publishes land while their confirms come after its transport's bound. Its transport then
 * answers "retryable" and resets the connection, the other relay sends the entries again, and the broker holds copies
 * of the same message from both. The question is whether a late copy ever lands after the next message of its key.
 *
 * <p>It must not: the delayed relay's transport answers by its {@code maxAnswerTime} and leaves nothing to send after
 * it, and the relay keeps the entry unclaimable until that bound has passed since the send began, so the other relay
 * sends the key's next message only after every copy has landed. The consumer's whole arrival sequence per key
 * (duplicates included) must therefore never go back. (With the publishes delayed past the bound instead, which no
 * client can prevent, this check fails: a key then arrives as {@code 0, 1, 0, ...}.)
 */
class RabbitMqLateCopyTest {
  private static final String PREFIX = "late_copy_rabbitmq_";
  private static final Duration BOUND = Duration.ofMillis(600);
  private static final Duration PUBLISH_DELAY = Duration.ofMillis(200);
  private static final Duration CONFIRM_DELAY = Duration.ofMillis(500);

  private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh(PREFIX);
  private final PostgresTestOutbox sameOutbox = PostgresTestOutbox.attach(PREFIX);
  private final Map<String, List<Integer>> arrivalsByKey = new HashMap<>();
  private final ConsumerLedger ledger = new ConsumerLedger();

  @AfterEach
  void cleanUp() {
    sameOutbox.close();
    outbox.close();
    broker.close();
  }

  @Test
  void a_confirmation_that_comes_after_the_deadline_never_lets_a_late_copy_overtake_the_next_message_of_its_key()
      throws Exception {
    broker.startConsuming((tag, delivery) -> {
      String text = new String(delivery.getBody(), StandardCharsets.UTF_8);
      int colon = text.lastIndexOf(':');
      synchronized (arrivalsByKey) {
        arrivalsByKey.computeIfAbsent(text.substring(0, colon), k -> new ArrayList<>())
            .add(Integer.parseInt(text.substring(colon + 1)));
      }
      ledger.record(delivery.getProperties().getMessageId(), delivery.getBody());
    });
    List<Message> sent = ConsumerLedger.backlog(broker.destination(), 1_000, 50);
    outbox.write(sent);
    try (TcpProxy slowLink = TcpProxy.start("127.0.0.1", RabbitMqTestBroker.PORT);
        RabbitMqTransport delayed = RabbitMqTransport.builder().withPort(slowLink.port()).withConfirmTimeout(BOUND)
            .withConnectionTimeout(Duration.ofSeconds(10)).withRecoveryInterval(Duration.ofMillis(100)).build();
        RabbitMqTransport direct = RabbitMqTransport.builder().withPort(RabbitMqTestBroker.PORT)
            .withConfirmTimeout(BOUND).build()) {
      // connect before the link slows down (an AMQP handshake is several round trips); NO_ROUTE proves the round trip
      Message warmUp = Message.builder().withDestination(broker.exchange + "/nobody").withPayload("warm-up").build();
      assertThat(delayed.deliver(warmUp).toCompletableFuture().get(30, TimeUnit.SECONDS).toString())
          .contains("NO_ROUTE");
      slowLink.delay(PUBLISH_DELAY, CONFIRM_DELAY);
      // the delayed relay's sends all fail, so it probes as in an outage: short pauses and two workers keep it busy
      try (Relay late = outbox.relayWithFastRetries(delayed).withWorkers(2)
              .withOutageBackoff(Duration.ofMillis(20), Duration.ofMillis(100)).build();
          Relay prompt = sameOutbox.relayWithFastRetries(direct).build()) {
        late.start();
        prompt.start();

        // Done when everything arrived and the delayed relay's late copies have landed too: on an idle machine the
        // prompt relay can drain the rest before the first late copy arrives, and the check below needs them.
        await().atMost(Duration.ofSeconds(90)).until(() -> ledger.uniqueCount() >= sent.size()
            && outbox.pending() == 0 && ledger.arrivalCount() > sent.size());
      }
    }

    ledger.assertReceivedExactly(sent);
    assertThat(ledger.arrivalCount()).as("copies from both relays landed: the delayed one's were late")
        .isGreaterThan(sent.size());
    synchronized (arrivalsByKey) {
      arrivalsByKey.forEach((key, arrivals) -> {
        List<Integer> neverBack = new ArrayList<>(arrivals);
        neverBack.sort(null);
        assertThat(arrivals).as("every arrival of key %s, duplicates included", key).isEqualTo(neverBack);
      });
    }
    assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
  }
}
