package dev.outbox4j.examples.modulith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.outbox4j.examples.modulith.order.OrderService;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The example end to end against the RabbitMQ service: a placed order's externalized event arrives on exchange
 * {@code modulith-orders} with routing key {@code placed}, the shipping module's listener still runs, and a refused
 * order sends nothing.
 */
@SpringBootTest(properties = {"orders.demo=false", "orders.queue=",
    "spring.datasource.url=jdbc:h2:mem:modulith-orders-test;DB_CLOSE_DELAY=-1"})
class ModulithOrdersApplicationTest {
  private static final Queue<String> received = new ConcurrentLinkedQueue<>();
  private static Connection rabbit;

  @Autowired
  OrderService orders;
  @Autowired
  JdbcTemplate jdbc;

  @BeforeAll
  static void listen() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    rabbit = factory.newConnection();
    Channel channel = rabbit.createChannel();
    channel.exchangeDeclare("modulith-orders", "direct", true);
    String queue = channel.queueDeclare().getQueue();
    channel.queueBind(queue, "modulith-orders", "placed");
    channel.basicConsume(queue, true, new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
        received.add(new String(body, StandardCharsets.UTF_8));
      }
    });
  }

  @AfterAll
  static void close() throws Exception {
    rabbit.close();
  }

  @Test
  void a_placed_order_is_externalized_through_the_outbox_and_shipped_inside_the_application() {
    String placed = orders.place(1_999);

    await().atMost(Duration.ofSeconds(15))
        .until(() -> received.contains("{\"orderId\":\"" + placed + "\",\"totalCents\":1999}"));
    await().atMost(Duration.ofSeconds(15)).until(() -> jdbc.queryForObject(
        "SELECT count(*) FROM modulith_shipments WHERE order_id = ?", Long.class, placed) == 1);
  }

  @Test
  void a_refused_order_sends_nothing() {
    assertThatThrownBy(() -> orders.place(-1)).isInstanceOf(IllegalArgumentException.class);
    String later = orders.place(5);

    await().atMost(Duration.ofSeconds(15)).until(() -> received.stream().anyMatch(body -> body.contains(later)));
    assertThat(received).noneMatch(body -> body.contains("\"totalCents\":-1"));
    await().atMost(Duration.ofSeconds(15)).until(() -> jdbc.queryForObject(
        "SELECT count(*) FROM modulith_outbox", Long.class) == 0); // deleted on delivery; the refused one never existed
  }
}
