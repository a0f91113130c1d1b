package dev.outbox4j.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example end to end against the RabbitMQ service: committed orders are billed once each, even when RabbitMQ
 * delivers an event twice; a refused order leaves no event behind.
 */
@SpringBootTest(properties = "orders.demo=false")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrdersApplicationTest {
  private static final String RUN = UUID.randomUUID().toString();

  @Autowired
  AmqpAdmin admin;
  @Autowired
  OrderService orders;
  @Autowired
  JdbcTemplate jdbc;
  @Autowired
  RabbitTemplate rabbit;
  @Value("${orders.queue}")
  String queue;

  @DynamicPropertySource
  static void uniqueNames(DynamicPropertyRegistry registry) {
    registry.add("orders.exchange", () -> "orders-test-" + RUN);
    registry.add("orders.queue", () -> "orders-billing-test-" + RUN);
    registry.add("orders.loyalty-queue", () -> "orders-loyalty-test-" + RUN);
    registry.add("spring.datasource.url", () -> "jdbc:h2:mem:orders-" + RUN + ";DB_CLOSE_DELAY=-1");
  }

  @AfterAll
  void deleteBrokerObjects() {
    admin.deleteQueue("orders-billing-test-" + RUN);
    admin.deleteQueue("orders-loyalty-test-" + RUN);
    admin.deleteExchange("orders-test-" + RUN);
  }

  @Test
  void committed_orders_are_billed_once_and_a_refused_order_never_leaves() {
    String paid = "o-" + UUID.randomUUID();
    String refused = "o-" + UUID.randomUUID();
    orders.place(paid, 1_999);
    assertThatThrownBy(() -> orders.place(refused, -1)).isInstanceOf(IllegalArgumentException.class);

    await().atMost(Duration.ofSeconds(15)).until(() -> invoices(paid) == 1);
    assertThat(invoices(refused)).isZero();
    assertThat(jdbc.queryForObject("SELECT count(*) FROM boot_orders WHERE id = ?", Long.class, refused)).isZero();
  }

  @Test
  void a_redelivered_event_is_skipped_by_the_inbox() {
    String order = "o-" + UUID.randomUUID();
    orders.place(order, 500);
    await().atMost(Duration.ofSeconds(15)).until(() -> invoices(order) == 1);

    String messageId = jdbc.queryForObject("SELECT message_id FROM boot_inbox", String.class);
    rabbit.send("", queue, MessageBuilder.withBody(("{\"orderId\":\"" + order + "\",\"totalCents\":500}").getBytes())
        .setMessageId(messageId).build());
    rabbit.send("", queue, MessageBuilder.withBody("{\"orderId\":\"marker\",\"totalCents\":1}".getBytes())
        .setMessageId(UUID.randomUUID().toString()).build());
    await().atMost(Duration.ofSeconds(15)).until(() -> invoices("marker") == 1);
    assertThat(invoices(order)).isOne();
  }

  private long invoices(String order) {
    return jdbc.queryForObject("SELECT count(*) FROM boot_invoices WHERE order_id = ?", Long.class, order);
  }
}
