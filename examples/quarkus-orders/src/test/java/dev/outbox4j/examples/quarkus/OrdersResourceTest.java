package dev.outbox4j.examples.quarkus;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outbox4j.jdbc.testing.RunDatabases;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The example as a user runs it, on this JVM's own PostgreSQL database and a queue of its own on the machine's RabbitMQ:
 * an order placed over HTTP arrives as its event on the queue; a refused order publishes nothing.
 */
@QuarkusTest
@WithTestResource(OrdersResourceTest.OwnDatabaseAndQueue.class)
class OrdersResourceTest {
  private static final String QUEUE = "quarkus-orders-test-" + RunDatabases.name();

  /** This JVM's database and queue, instead of the example's defaults. */
  public static class OwnDatabaseAndQueue implements QuarkusTestResourceLifecycleManager {
    @Override
    public Map<String, String> start() {
      return Map.of("quarkus.datasource.jdbc.url", RunDatabases.postgresUrl(), "orders.queue", QUEUE);
    }

    @Override
    public void stop() {}
  }

  @Test
  void an_order_placed_over_http_is_published_to_rabbitmq() throws Exception {
    String orderId = given().queryParam("totalCents", 1999).post("/orders")
        .then().statusCode(201).extract().path("orderId");
    given().queryParam("totalCents", 0).post("/orders").then().statusCode(400);

    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
      AtomicReference<String> received = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        GetResponse response = channel.basicGet(QUEUE, true);
        if (response != null) {
          received.set(new String(response.getBody(), StandardCharsets.UTF_8));
        }
        return received.get() != null;
      });
      assertThat(received.get()).isEqualTo("{\"orderId\":\"" + orderId + "\",\"totalCents\":1999}");
      assertThat(channel.basicGet(QUEUE, true)).as("the refused order published nothing").isNull();
      channel.queueDelete(QUEUE);
    }
    given().get("/q/health/ready").then().statusCode(200);
  }
}
