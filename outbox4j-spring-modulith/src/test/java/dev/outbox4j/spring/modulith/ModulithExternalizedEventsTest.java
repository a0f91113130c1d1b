package dev.outbox4j.spring.modulith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spring.OutboxTransactionRequiredException;
import dev.outbox4j.spring.modulith.app.ModulithTestApplication;
import dev.outbox4j.spring.modulith.app.NotesListener;
import dev.outbox4j.spring.modulith.app.Orders;
import dev.outbox4j.testkit.OutageWatch;
import dev.outbox4j.testkit.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A real Spring Modulith application (its JDBC event publication registry on the PostgreSQL service) whose
 * {@code @Externalized} events outbox4j writes in the publishing transaction and delivers to the RabbitMQ service,
 * through a proxy the outage test cuts. Modulith's own externalization is switched off, as a migrating application
 * does; the configuration of {@code @Externalized} events is then the one outbox4j's auto-configuration builds.
 */
@SpringBootTest(classes = {ModulithTestApplication.class, ModulithExternalizedEventsTest.Watch.class},
    properties = {"outbox4j.tables.prefix=smt_", "outbox4j.relay.max-poll=200ms",
        "outbox4j.transport.type=rabbitmq", "outbox4j.transport.rabbitmq.host=127.0.0.1",
        "outbox4j.retry.base=50ms", "outbox4j.retry.cap=500ms", "outbox4j.retry.max-attempts=3",
        "outbox4j.retry.give-up-after=3s", "outbox4j.keep-delivered=1h",
        "spring.modulith.events.externalization.enabled=false",
        "spring.modulith.events.jdbc.schema-initialization.enabled=true"})
class ModulithExternalizedEventsTest {
  private static final Pattern PLACED = Pattern.compile("\\{\"orderId\":\"([^\"]+)\",\"sequence\":(\\d+)}");
  private static final Queue<Placed> received = new ConcurrentLinkedQueue<>();
  private static TcpProxy proxy;
  private static Connection rabbit;

  @Autowired
  Orders orders;
  @Autowired
  NotesListener notes;
  @Autowired
  OutageWatch watch;
  @Autowired
  JdbcTemplate jdbc;

  /** The relay's listener that tells an outage (postponed, uncharged) from failures charged to entries. */
  @TestConfiguration
  static class Watch {
    @Bean
    OutageWatch outageWatch() {
      return new OutageWatch();
    }
  }

  @DynamicPropertySource
  static void services(DynamicPropertyRegistry registry) {
    if (proxy == null) {
      proxy = TcpProxy.start("127.0.0.1", 5672);
    }
    registry.add("spring.datasource.url", RunDatabases::postgresUrl);
    registry.add("outbox4j.transport.rabbitmq.port", proxy::port);
  }

  @BeforeAll
  static void ordersTableAndConsumer() throws Exception {
    try (var connection = DriverManager.getConnection(RunDatabases.postgresUrl());
        var statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS smt_orders (id VARCHAR(64), sequence INT)");
    }
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    rabbit = factory.newConnection();
    Channel channel = rabbit.createChannel();
    channel.exchangeDeclare("smt.orders", "direct");
    String queue = channel.queueDeclare().getQueue();
    channel.queueBind(queue, "smt.orders", "placed");
    channel.basicConsume(queue, true, new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
        Matcher placed = PLACED.matcher(new String(body, StandardCharsets.UTF_8));
        if (placed.matches()) {
          received.add(new Placed(placed.group(1), Integer.parseInt(placed.group(2)), properties.getMessageId()));
        }
      }
    });
  }

  @AfterAll
  static void close() throws Exception {
    rabbit.close();
    proxy.close();
  }

  @Test
  void externalized_events_arrive_in_commit_order_per_key() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<String> keys = IntStream.range(0, 4).mapToObj(k -> "order-" + run + "-" + k).toList();
    int perKey = 25;
    ExecutorService writers = Executors.newFixedThreadPool(keys.size());
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String key : keys) {
        done.add(writers.submit(() -> IntStream.range(0, perKey).forEach(n -> orders.place(key, n, false))));
      }
      for (Future<?> writer : done) {
        writer.get();
      }
    } finally {
      writers.shutdown();
    }
    for (String key : keys) {
      assertThat(await().atMost(Duration.ofSeconds(30)).until(() -> firstArrivals(key), seen -> seen.size() == perKey))
          .as("sequences of %s in order of first arrival", key)
          .containsExactlyElementsOf(IntStream.range(0, perKey).boxed().toList());
    }
  }

  @Test
  void a_rolled_back_transaction_publishes_nothing() {
    String refused = "refused-" + UUID.randomUUID();
    String later = "later-" + UUID.randomUUID();
    assertThatThrownBy(() -> orders.place(refused, 0, true)).isInstanceOf(Orders.Refused.class);
    orders.place(later, 0, false);

    await().atMost(Duration.ofSeconds(10)).until(() -> firstArrivals(later).size() == 1);
    assertThat(firstArrivals(refused)).isEmpty();
    assertThat(outboxRowsKeyed(refused)).isZero();
    assertThat(jdbc.queryForObject("SELECT count(*) FROM smt_orders WHERE id = ?", Long.class, refused)).isZero();
  }

  @Test
  void publishing_outside_a_transaction_is_refused_and_writes_nothing() {
    String order = "untransacted-" + UUID.randomUUID();
    assertThatThrownBy(() -> orders.placeWithoutTransaction(order))
        .isInstanceOf(OutboxTransactionRequiredException.class);
    assertThat(outboxRowsKeyed(order)).isZero();
  }

  @Test
  void a_broker_outage_quarantines_nothing_and_order_survives_it() {
    String order = "outage-" + UUID.randomUUID();
    int events = 10;
    int quarantinedBefore = watch.quarantined();
    proxy.cut();
    IntStream.range(0, events).forEach(n -> orders.place(order, n, false));
    watch.holdOutage(proxy, OutageWatch.RETRY_BUDGET.plusSeconds(2));

    assertThat(await().atMost(Duration.ofSeconds(60)).until(() -> firstArrivals(order), seen -> seen.size() == events))
        .containsExactlyElementsOf(IntStream.range(0, events).boxed().toList());
    assertThat(watch.quarantined()).isEqualTo(quarantinedBefore);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM smt_outbox WHERE ordering_key = ? AND status = 'QUARANTINED'",
        Long.class, order)).isZero();
  }

  @Test
  void events_modulith_does_not_externalize_stay_with_modulith() {
    String order = "noted-" + UUID.randomUUID();
    orders.note(order);

    await().atMost(Duration.ofSeconds(10)).until(() -> notes.noted().contains(order));
    assertThat(jdbc.queryForObject("SELECT count(*) FROM smt_outbox WHERE convert_from(payload, 'UTF8') LIKE ?", Long.class,
        "%" + order + "%")).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
        "SELECT count(*) FROM event_publication WHERE serialized_event LIKE ? AND completion_date IS NOT NULL",
        Long.class, "%" + order + "%") == 1);
  }

  private long outboxRowsKeyed(String key) {
    return jdbc.queryForObject("SELECT count(*) FROM smt_outbox WHERE ordering_key = ?", Long.class, key);
  }

  /** @return the sequences received for an order, each at its first arrival (a redelivery repeats a message id) */
  private static List<Integer> firstArrivals(String orderId) {
    Map<String, Placed> byId = received.stream().filter(placed -> placed.orderId().equals(orderId))
        .collect(Collectors.toMap(Placed::messageId, placed -> placed, (first, again) -> first,
            java.util.LinkedHashMap::new));
    return byId.values().stream().map(Placed::sequence).toList();
  }

  private record Placed(String orderId, int sequence, String messageId) {}
}
