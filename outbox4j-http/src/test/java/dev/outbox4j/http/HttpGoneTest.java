package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OperatorPause;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Standard Webhooks sender rule for {@code 410 Gone}, through a real relay, store and receiver. */
class HttpGoneTest {
  private final WebhookServer server = new WebhookServer();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("gone_http_");

  @AfterEach
  void stop() {
    outbox.close();
    server.close();
  }

  private static Message to(String destination) {
    return Message.builder().withDestination(destination).withPayload("{}").withContentType("application/json")
        .build();
  }

  @Test
  void the_transport_reports_410_as_the_destination_gone() throws Exception {
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("hook", server.uri("/status/410")).build()) {
      DeliveryOutcome outcome = transport.deliver(to("hook")).toCompletableFuture().get(30, TimeUnit.SECONDS);

      assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Permanent.class,
          permanent -> assertThat(permanent.destinationGone()).isTrue());
    }
  }

  @Test
  void a_410_quarantines_its_entry_as_destination_gone_and_pauses_only_that_destination() {
    Message first = to("retired");
    outbox.write(List.of(first));
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("retired", server.uri("/status/410"))
        .withEndpoint("live", server.uri("/ok")).build()) {
      try (Relay relay = outbox.relayWithFastRetries(transport).build()) {
        relay.drain(5);
      }
      OutboxEntry gone = outbox.store().find(first.id()).orElseThrow();
      assertThat(gone.status()).isEqualTo(EntryStatus.QUARANTINED);
      assertThat(gone.quarantineKind()).isEqualTo(QuarantineKind.DESTINATION_GONE);
      assertThat(gone.quarantineReason()).contains("410");
      assertThat(outbox.store().operatorPauses()).extracting(OperatorPause::destination).containsExactly("retired");
      assertThat(server.received()).hasSize(1);

      Message later = to("retired");
      Message elsewhere = to("live");
      outbox.write(List.of(later, elsewhere));
      server.received().clear();
      try (Relay relay = outbox.relayWithFastRetries(transport).build()) {
        relay.drain(5);
      }

      assertThat(server.received()).as("nothing more is sent to the gone destination")
          .extracting(WebhookServer.Request::path).containsExactly("/ok");
      assertThat(outbox.store().find(later.id()).orElseThrow().status()).isNotEqualTo(EntryStatus.DELIVERED);
      assertThat(outbox.store().find(elsewhere.id()).map(OutboxEntry::status)
          .filter(status -> status != EntryStatus.DELIVERED)).as("delivered (or already purged)").isEmpty();
      assertThat(outbox.store().requeue(first.id(), Instant.now())).as("requeueable").isTrue();
      assertThat(outbox.store().resumeDestination("retired")).isTrue();
    }
  }
}
