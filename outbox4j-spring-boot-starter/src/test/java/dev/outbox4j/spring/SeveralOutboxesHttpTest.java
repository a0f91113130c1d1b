package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Two outboxes over real HTTP (embedded Tomcat, H2, both relays sharing one {@code Transport} bean): the
 * {@code outbox4j} endpoint answers every outbox at its root and one outbox under its name, its actions change only
 * that outbox, an unknown name is 400; Actuator's health shows {@code outbox4j} with a component per outbox.
 */
@SpringBootTest(classes = SeveralOutboxesHttpTest.Application.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.datasource.url=jdbc:h2:mem:outbox4j-several-http;DB_CLOSE_DELAY=-1",
        "outbox4j.outboxes.red.tables.prefix=hr_", "outbox4j.outboxes.red.transport.bean=transport",
        "outbox4j.outboxes.red.relay.max-poll=200ms",
        "outbox4j.outboxes.blue.tables.prefix=hb_", "outbox4j.outboxes.blue.transport.bean=transport",
        "management.endpoints.web.exposure.include=health,outbox4j",
        "management.endpoint.health.show-details=always"})
class SeveralOutboxesHttpTest {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** An application with no outbox code of its own: a transport that refuses destination {@code poison} for good. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Application {
    @Bean
    Transport transport() {
      return InProcessTransport.of(message -> message.destination().equals("poison")
          ? DeliveryOutcome.permanent("refused by the test consumer") : DeliveryOutcome.delivered());
    }
  }

  @Autowired
  Environment environment;
  @Autowired
  @Qualifier("red")
  JdbcOutboxStore red;

  private HttpResponse<String> send(String method, String path, String json) {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
            + environment.getProperty("local.server.port") + "/actuator" + path)).timeout(Duration.ofSeconds(20))
        .header("Content-Type", "application/json")
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
        .build();
    try {
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void the_endpoint_shows_every_outbox_and_acts_on_the_one_it_names() {
    String key = "p-" + UUID.randomUUID();
    red.enqueue(Message.builder().withDestination("poison").withOrderingKey(key).withPayload("{}").build());
    await().atMost(Duration.ofSeconds(20))
        .until(() -> red.countQuarantined(QuarantineSelector.ofDestination("poison")) >= 1);

    HttpResponse<String> all = send("GET", "/outbox4j", null);
    assertThat(all.statusCode()).as(all.body()).isEqualTo(200);
    assertThat(all.body()).startsWith("{\"outboxes\":{\"red\":{").contains("\"blue\":{", key);
    assertThat(send("GET", "/outbox4j/red", null).body()).contains(key);
    assertThat(send("GET", "/outbox4j/blue", null).body()).doesNotContain(key).contains("\"total\":0");
    assertThat(send("GET", "/outbox4j/red/groups", null).body()).contains("\"destination\":\"poison\"");

    HttpResponse<String> pause = send("POST", "/outbox4j/red/destinations/erp", "{\"action\": \"pause\"}");
    assertThat(pause.statusCode()).as(pause.body()).isEqualTo(200);
    assertThat(send("GET", "/outbox4j/red/pauses", null).body()).contains("\"destination\":\"erp\"");
    assertThat(send("GET", "/outbox4j/blue/pauses", null).body()).isEqualTo("[]");
    send("POST", "/outbox4j/red/destinations/erp", "{\"action\": \"resume\"}");

    HttpResponse<String> discard = send("DELETE", "/outbox4j/red?key=" + key, null);
    assertThat(discard.statusCode()).as(discard.body()).isEqualTo(200);
    assertThat(discard.body()).contains("\"entries\":1");
    assertThat(send("GET", "/outbox4j/red/audit", null).body()).contains("\"action\":\"discard\"");
    assertThat(send("GET", "/outbox4j/blue/audit", null).body()).doesNotContain("\"action\":\"discard\"");

    assertThat(send("GET", "/outbox4j/green", null).statusCode()).isEqualTo(400); // the reason: SeveralOutboxesTest
  }

  @Test
  void health_has_a_component_per_outbox() {
    HttpResponse<String> health = send("GET", "/health/outbox4j", null);
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    assertThat(health.body()).contains("\"components\":{", "\"blue\":{", "\"red\":{", "\"quarantined\":");
    HttpResponse<String> red = send("GET", "/health/outbox4j/red", null);
    assertThat(red.statusCode()).as(red.body()).isEqualTo(200);
    assertThat(red.body()).startsWith("{").contains("\"status\":\"UP\"", "\"pending\":");
  }
}
