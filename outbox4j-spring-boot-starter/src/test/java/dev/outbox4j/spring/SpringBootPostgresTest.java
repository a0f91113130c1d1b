package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.app.OrderNoted;
import dev.outbox4j.spring.app.OrderService;
import dev.outbox4j.spring.app.OrdersTestApplication;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter in a real Boot application on the PostgreSQL service: writes join the {@code @Transactional} method's
 * transaction, through {@link TransactionalOutbox} and through {@code ApplicationEventPublisher}.
 */
@SpringBootTest(classes = OrdersTestApplication.class,
    properties = {"outbox4j.tables.prefix=sbt_", "outbox4j.relay.max-poll=200ms", "outbox4j.key-numbering=at-insert",
        "management.endpoints.web.exposure.include=health,outbox4j"})
class SpringBootPostgresTest {
  @Autowired
  OrderService orders;
  @Autowired
  Queue<Message> delivered;
  @Autowired
  JdbcTemplate jdbc;
  @Autowired
  ApplicationEventPublisher events;
  @Autowired
  OutboxEndpoint endpoint;
  @Autowired
  MeterRegistry meters;
  @Autowired
  WakeUpListenerLifecycle wakeUpListener;
  @Autowired
  JdbcOutboxStore store;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", RunDatabases::postgresUrl);
  }

  @BeforeAll
  static void ordersTable() throws Exception {
    try (var connection = java.sql.DriverManager.getConnection(RunDatabases.postgresUrl());
        var statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS sbt_orders (id VARCHAR(64) PRIMARY KEY)");
    }
  }

  @Test
  void the_relay_listens_for_the_outbox_notify_on_postgresql() {
    assertThat(wakeUpListener.isRunning()).isTrue();
    assertThat(wakeUpListener.channel()).isEqualTo("sbt_outbox");
    await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN \"sbt_outbox\"'",
        Long.class) >= 1);
  }

  @Test
  void keys_are_numbered_as_outbox4j_key_numbering_says() {
    assertThat(store.keyNumberingInUse()).isEqualTo(KeyNumbering.AT_INSERT);
  }

  @Test
  void a_transactional_write_that_throws_leaves_neither_the_order_nor_its_message() {
    String order = "o-" + UUID.randomUUID();
    assertThatThrownBy(() -> orders.placeWithMessage(order, true)).isInstanceOf(OrderService.Refused.class);
    assertThat(ordersNamed(order)).isZero();
    assertThat(outboxRowsWithHeader(order)).isZero();
  }

  @Test
  void a_transactional_write_that_commits_has_its_message_delivered() {
    String order = "o-" + UUID.randomUUID();
    orders.placeWithMessage(order, false);
    assertThat(ordersNamed(order)).isOne();
    Message message = await().atMost(Duration.ofSeconds(10)).until(() -> deliveredFor(order), m -> m != null);
    assertThat(message.orderingKey()).contains(order);
    assertThat(new String(message.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"orderId\":\"" + order + "\"}");
    await().atMost(Duration.ofSeconds(10)).until(() -> meters.find("outbox4j.delivered").counter() != null
        && meters.find("outbox4j.delivered").counter().count() >= 1);
  }

  @Test
  void a_write_with_no_transaction_is_refused_and_writes_nothing() {
    String order = "o-" + UUID.randomUUID();
    assertThatThrownBy(() -> orders.placeWithoutTransaction(order))
        .isInstanceOf(OutboxTransactionRequiredException.class)
        .hasMessageContaining("outbox4j.write.without-transaction=own-transaction");
    assertThat(outboxRowsWithHeader(order)).isZero();
  }

  @Test
  void an_event_published_in_a_transaction_that_throws_leaves_neither_the_order_nor_the_event() {
    String order = "e-" + UUID.randomUUID();
    assertThatThrownBy(() -> orders.placeWithEvent(order, true)).isInstanceOf(OrderService.Refused.class);
    assertThat(ordersNamed(order)).isZero();
    assertThat(jdbc.queryForObject("SELECT count(*) FROM sbt_outbox WHERE ordering_key = ?", Long.class, order))
        .isZero();
  }

  @Test
  void an_event_published_in_a_transaction_that_commits_is_delivered_as_json_with_its_ordering_key() {
    String order = "e-" + UUID.randomUUID();
    orders.placeWithEvent(order, false);
    Message message = await().atMost(Duration.ofSeconds(10))
        .until(() -> delivered.stream().filter(m -> m.orderingKey().orElse("").equals(order)).findFirst()
            .orElse(null), m -> m != null);
    assertThat(message.destination()).isEqualTo("orders/placed");
    assertThat(message.contentType()).isEqualTo("application/json");
    assertThat(new String(message.payload(), StandardCharsets.UTF_8))
        .isEqualTo("{\"orderId\":\"" + order + "\",\"items\":3}");
  }

  @Test
  void an_event_published_with_no_transaction_is_refused_and_unmarked_events_are_untouched() {
    String order = "e-" + UUID.randomUUID();
    assertThatThrownBy(() -> orders.publishWithoutTransaction(order))
        .isInstanceOf(OutboxTransactionRequiredException.class);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM sbt_outbox WHERE ordering_key = ?", Long.class, order))
        .isZero();
    events.publishEvent(new OrderNoted(order));
  }

  @Test
  void the_endpoint_lists_a_quarantined_entry_requeues_it_and_discards_it() {
    endpoint.discardSelected(null, null, "poison", null, null); // what another test may have left
    orders.send("poison");
    OutboxEndpoint.QuarantinedEntry entry = await().atMost(Duration.ofSeconds(10))
        .until(() -> endpoint.quarantined(null, null).entries(), entries -> entries.size() == 1).get(0);
    assertThat(entry.destination()).isEqualTo("poison");
    assertThat(entry.reason()).contains("refused by the test consumer");

    assertThat(endpoint.requeue(entry.id()).applied()).isTrue();
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> jdbc.queryForObject(
        "SELECT attempts FROM sbt_outbox WHERE id = ? AND status = 'QUARANTINED'", Integer.class,
        UUID.fromString(entry.id())), attempts -> attempts != null);
    assertThat(endpoint.discard(entry.id()).applied()).isTrue();
    assertThat(endpoint.quarantined(null, null).entries()).isEmpty();
    assertThat(endpoint.discard(entry.id()).applied()).isFalse();
  }

  @Test
  void the_endpoint_requeues_and_discards_a_selection_and_refuses_an_empty_one() {
    endpoint.discardSelected(null, null, "poison", null, null); // what another test may have left
    orders.send("poison");
    orders.send("poison");
    await().atMost(Duration.ofSeconds(10))
        .until(() -> endpoint.quarantined(null, null).entries(), entries -> entries.size() == 2);

    assertThatThrownBy(() -> endpoint.discardSelected(null, null, null, null, null))
        .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("all=true");
    assertThatThrownBy(() -> endpoint.discardSelected(null, null, null, null, "SOMETIMES"))
        .isInstanceOf(InvalidEndpointRequestException.class).hasMessageContaining("kind must be one of");
    assertThat(endpoint.requeueSelected(null, null, "poison", null, "PERMANENT_FAILURE").entries()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10))
        .until(() -> endpoint.quarantined(null, null).entries(), entries -> entries.size() == 2);
    assertThat(endpoint.discardSelected(true, null, null, null, null).entries()).isEqualTo(2);
    assertThat(endpoint.quarantined(null, null).entries()).isEmpty();
  }

  private long ordersNamed(String order) {
    return jdbc.queryForObject("SELECT count(*) FROM sbt_orders WHERE id = ?", Long.class, order);
  }

  private long outboxRowsWithHeader(String order) {
    return jdbc.queryForObject("SELECT count(*) FROM sbt_outbox WHERE headers LIKE ?", Long.class,
        "%" + order + "%");
  }

  private Message deliveredFor(String order) {
    return delivered.stream().filter(m -> order.equals(m.headers().get("order"))).findFirst().orElse(null);
  }
}
