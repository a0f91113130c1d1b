package dev.outbox4j.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.QuarantineQuery;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The example as a user runs it, on PostgreSQL (a database of this test JVM's own) and the RabbitMQ service, started
 * twice on the same database: each start places its orders under new ids and bills them once; the first start leaves
 * one quarantined entry on purpose (an unroutable loyalty event) and the second does not add another; the web API,
 * health, Prometheus and the outbox4j endpoint answer over HTTP; once the loyalty queue is bound, the endpoint's
 * requeue delivers the entry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrdersApplicationRestartTest {
  private static final String RUN = UUID.randomUUID().toString();
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final HttpClient http = HttpClient.newHttpClient();

  private ConfigurableApplicationContext start(String loyaltyQueue) {
    return new SpringApplicationBuilder(OrdersApplication.class).run(
        "--spring.datasource.url=" + RunDatabases.postgresUrl(),
        "--server.port=0",
        "--orders.exchange=orders-restart-" + RUN,
        "--orders.queue=orders-billing-restart-" + RUN,
        "--orders.loyalty-queue=" + loyaltyQueue);
  }

  @AfterAll
  void deleteBrokerObjects() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
      channel.queueDelete("orders-billing-restart-" + RUN);
      channel.queueDelete("orders-loyalty-restart-" + RUN);
      channel.exchangeDelete("orders-restart-" + RUN);
    }
  }

  @Test
  void it_starts_twice_on_postgresql_bills_every_order_once_and_its_quarantined_entry_is_delivered_by_a_requeue()
      throws Exception {
    UUID quarantined;
    try (ConfigurableApplicationContext first = start("")) {
      JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
      JdbcOutboxStore store = first.getBean(JdbcOutboxStore.class);
      await().atMost(PATIENCE).until(() -> invoices(jdbc) == 2 && quarantined(store).size() == 1);
      OutboxEntry entry = quarantined(store).get(0);
      quarantined = entry.id();
      assertThat(entry.message().destination()).isEqualTo("orders-restart-" + RUN + "/loyalty");
      assertThat(entry.quarantineReason()).contains("NO_ROUTE");

      String base = "http://localhost:" + first.getEnvironment().getProperty("local.server.port");
      HttpResponse<String> placed = send("POST", base + "/orders?totalCents=700");
      assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
      String location = placed.headers().firstValue("Location").orElseThrow();
      await().atMost(PATIENCE).until(() -> send("GET", base + location).body().contains("\"billed\":true"));
      HttpResponse<String> refused = send("POST", base + "/orders?totalCents=-5");
      assertThat(refused.statusCode()).isEqualTo(400);
      assertThat(refused.body()).contains("negative total");

      HttpResponse<String> health = send("GET", base + "/actuator/health");
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(health.body()).contains("\"outbox4j\"", "\"quarantined\":1");
      HttpResponse<String> prometheus = send("GET", base + "/actuator/prometheus");
      assertThat(prometheus.statusCode()).isEqualTo(200);
      assertThat(prometheus.body()).contains("outbox4j_delivered_total", "outbox4j_quarantined_total");
    }

    // the loyalty service is there now: its queue is bound, so a requeue delivers the quarantined event
    try (ConfigurableApplicationContext second = start("orders-loyalty-restart-" + RUN)) {
      JdbcTemplate jdbc = second.getBean(JdbcTemplate.class);
      JdbcOutboxStore store = second.getBean(JdbcOutboxStore.class);
      await().atMost(PATIENCE).until(() -> invoices(jdbc) == 5);
      assertThat(jdbc.queryForObject("SELECT count(*) FROM orders", Long.class)).isEqualTo(5);
      assertThat(quarantined(store)).extracting(OutboxEntry::id).containsExactly(quarantined);

      String base = "http://localhost:" + second.getEnvironment().getProperty("local.server.port");
      HttpResponse<String> listed = send("GET", base + "/actuator/outbox4j");
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(listed.body()).contains(quarantined.toString(), "NO_ROUTE");
      HttpResponse<String> requeued = send("POST", base + "/actuator/outbox4j/" + quarantined);
      assertThat(requeued.statusCode()).as(requeued.body()).isBetween(200, 299);
      await().atMost(PATIENCE).until(() -> store.find(quarantined).isEmpty()); // delivered, and deleted on delivery
      assertThat(second.getBean(RabbitTemplate.class).receive("orders-loyalty-restart-" + RUN, 5_000))
          .isNotNull().satisfies(message -> assertThat(new String(message.getBody(), StandardCharsets.UTF_8))
              .contains("\"points\":20"));
      assertThat(quarantined(store)).isEmpty();
      assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox4j_outbox WHERE status <> ?", Long.class,
          EntryStatus.DELIVERED.name())).isZero();
    }
  }

  private HttpResponse<String> send(String method, String url) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).method(method, HttpRequest.BodyPublishers.noBody())
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<OutboxEntry> quarantined(JdbcOutboxStore store) {
    return store.quarantined(QuarantineQuery.first(100));
  }

  private static long invoices(JdbcTemplate jdbc) {
    return jdbc.queryForObject("SELECT count(*) FROM invoices", Long.class);
  }
}
