package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.testing.PostgresTestOutbox;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** An endpoint URL's query string (a partner's token) never reaches an entry's last error or a pause's reason. */
class HttpEndpointRedactionTest {
  private static final String TOKEN = "s3cr3t-partner-token";

  private final WebhookServer server = new WebhookServer();
  private final PostgresTestOutbox outbox = PostgresTestOutbox.fresh("redact_http_");

  @AfterEach
  void close() {
    outbox.close();
    server.close();
  }

  @Test
  void a_token_in_the_query_string_never_appears_in_last_error_of_a_503() {
    URI endpoint = server.uri("/status/503?token=" + TOKEN + "&tenant=7");
    Message message = Message.builder().withDestination("hook").withOrderingKey("k")
        .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build();
    outbox.write(List.of(message));
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("hook", endpoint).build();
        Relay relay = outbox.relayWithFastRetries(transport).build()) {
      relay.flush();

      assertThat(server.received()).as("the request went to the URL as configured").isNotEmpty();
      OutboxEntry entry = outbox.store().find(message.id()).orElseThrow();
      assertThat(entry.lastError()).contains("HTTP 503 from http://127.0.0.1:" + server.port() + "/status/503?…")
          .doesNotContain(TOKEN, "tenant=7");
      assertThat(relay.pausedDestinations()).extracting(DestinationStatus::lastError)
          .noneMatch(error -> error.contains(TOKEN));
    }
  }

  @Test
  void a_failure_without_a_response_shows_neither_the_query_nor_the_user_information() {
    URI endpoint = URI.create("http://user:" + TOKEN + "@127.0.0.1:9/in?token=" + TOKEN);
    assertThat(ShownUri.of(endpoint)).isEqualTo("http://127.0.0.1:9/in?…");
    assertThat(ShownUri.scrub("java.net.ConnectException: refused " + endpoint, endpoint)).doesNotContain(TOKEN);
  }
}
