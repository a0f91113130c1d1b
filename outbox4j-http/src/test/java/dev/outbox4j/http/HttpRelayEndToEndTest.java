package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.testkit.ConsumerLedger;
import dev.outbox4j.testkit.OutageWatch;
import dev.outbox4j.testkit.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PostgreSQL outbox → relay → HTTP transport → a real local webhook receiver. */
class HttpRelayEndToEndTest {
  private final WebhookServer server = new WebhookServer();
  private final ConsumerLedger ledger = new ConsumerLedger();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("e2e_http_");

  @AfterEach
  void stopServer() {
    outbox.close();
    server.close();
  }

  private Relay relay(HttpTransport transport) {
    return outbox.relayWithFastRetries(transport).withDeliveryTimeout(Duration.ofSeconds(10)).build();
  }

  @Test
  void five_thousand_messages_arrive_once_each_in_key_order() {
    server.onRequest(r -> ledger.record(r.header(HttpTransport.MESSAGE_ID_HEADER), r.body()));
    List<Message> sent = ConsumerLedger.backlog("hook", 5_000, 50);
    outbox.write(sent);
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("hook", server.uri("/ok"))
        .withSigningSecret(StandardWebhooksTest.SECRET).build();
        Relay relay = relay(transport)) {
      relay.start();

      await().atMost(Duration.ofSeconds(180)).until(() -> ledger.uniqueCount() >= 5_000 && outbox.pending() == 0);
    }
    ledger.assertReceivedExactly(sent);
    assertThat(ledger.arrivalCount()).as("no duplicates without an outage").isEqualTo(5_000);
    assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
  }

  @Test
  void a_receiver_away_longer_than_the_whole_retry_budget_quarantines_nothing_and_everything_arrives_in_key_order() {
    server.onRequest(r -> ledger.record(r.header(HttpTransport.MESSAGE_ID_HEADER), r.body()));
    List<Message> sent = ConsumerLedger.backlog("hook", 5_000, 50);
    outbox.write(sent);
    OutageWatch watch = new OutageWatch();
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", server.port());
        HttpTransport transport = HttpTransport.builder()
            .withEndpoint("hook", URI.create("http://127.0.0.1:" + proxy.port() + "/ok"))
            .withConnectTimeout(Duration.ofSeconds(2)).withRequestTimeout(Duration.ofSeconds(3)).build();
        Relay relay = outbox.relayWithFastRetries(transport).withRetryPolicy(OutageWatch.shortRetryBudget())
            .onEvent(watch).build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
          .until(() -> ledger.uniqueCount() >= 500);

      watch.holdOutage(proxy, OutageWatch.RETRY_BUDGET.multipliedBy(2));

      await().atMost(Duration.ofSeconds(60)).until(() -> ledger.uniqueCount() >= 5_000 && outbox.pending() == 0);
    }
    ledger.assertReceivedExactly(sent);
    assertThat(watch.postponed()).as("the outage was met and charged to nobody").isPositive();
    assertThat(watch.quarantined()).isZero();
    assertThat(outbox.store().quarantined(QuarantineQuery.first(10))).isEmpty();
  }
}
