package dev.outbox4j.quarkus.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.RunDatabases;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/** {@code GET /q/outbox4j/quarantined}, switched on by the profile: what it lists, and what it refuses. */
@QuarkusTest
@TestProfile(OwnApplication.class)
@WithTestResource(PostgresAndRabbitMq.class)
class QuarantineListingTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Inject JdbcOutboxStore store;
  @Inject ObjectMapper json;
  @TestHTTPResource("/q/outbox4j/quarantined") URI listing;

  @Test
  void the_listing_names_an_entry_waiting_for_an_operator_without_its_payload() throws Exception {
    // Not before an hour from now, so the relay leaves it alone until the test gives up on it.
    Message message = Message.builder().withDestination("/nowhere-" + RunDatabases.name()).withOrderingKey("k-9")
        .withPayload("the payload stays in the database").withNotBefore(Instant.now().plus(Duration.ofHours(1)))
        .build();
    store.markDeadLettered(store.enqueue(message), "no queue is bound", "given up by the test");

    HttpResponse<String> response = get(URI.create(listing + "?limit=1000"));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    JsonNode body = json.readTree(response.body());
    JsonNode entry = StreamSupport.stream(body.get("entries").spliterator(), false)
        .filter(node -> node.get("id").asText().equals(message.id().toString())).findFirst().orElseThrow();
    assertThat(entry.get("destination").asText()).isEqualTo(message.destination());
    assertThat(entry.get("orderingKey").asText()).isEqualTo("k-9");
    assertThat(entry.get("reason").asText()).isEqualTo("given up by the test");
    assertThat(entry.get("lastError").asText()).isEqualTo("no queue is bound");
    assertThat(body.get("total").asLong()).isPositive();
    assertThat(body.get("pausedDestinations").isArray()).isTrue();
    assertThat(response.body()).doesNotContain("the payload stays in the database");
  }

  @Test
  void a_limit_out_of_range_is_answered_400_with_the_reason() throws Exception {
    HttpResponse<String> response = get(URI.create(listing + "?limit=0"));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body()).contains("limit must be 1..1000");
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
