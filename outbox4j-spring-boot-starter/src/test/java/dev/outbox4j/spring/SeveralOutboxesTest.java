package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.actuate.OutboxesEndpoint;
import dev.outbox4j.spring.autoconfigure.Outbox4jActuatorAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jMetricsAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jOutboxesAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTransportAutoConfiguration;
import dev.outbox4j.testkit.TcpProxy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two outboxes in one Boot application, on two real databases: {@code billing} in PostgreSQL, reached through a
 * {@link TcpProxy} the test can cut, with its HTTP transport built from properties; {@code shipping} in MariaDB, with
 * a {@code Transport} bean of the application's. Each write joins its own DataSource's transaction, each relay
 * delivers its own entries to a real HTTP receiver, and a fault in one outbox stays in its lane.
 */
class SeveralOutboxesTest {
  private static final Queue<String> RECEIVED = new ConcurrentLinkedQueue<>();
  private static final ExecutorService RECEIVER_THREADS = Executors.newFixedThreadPool(4);
  private static final HttpServer RECEIVER = startReceiver();
  private static final TcpProxy POSTGRES = startProxy();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
          DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
          Outbox4jTransportAutoConfiguration.class, Outbox4jAutoConfiguration.class,
          Outbox4jOutboxesAutoConfiguration.class, Outbox4jMetricsAutoConfiguration.class,
          Outbox4jActuatorAutoConfiguration.class, MetricsAutoConfiguration.class,
          CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
          HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
          HealthEndpointAutoConfiguration.class))
      .withUserConfiguration(TwoDatabases.class)
      .withPropertyValues(
          "outbox4j.outboxes.billing.datasource=billingDataSource",
          "outbox4j.outboxes.billing.tables.prefix=mb_",
          "outbox4j.outboxes.billing.relay.max-poll=200ms",
          "outbox4j.outboxes.billing.transport.type=http",
          "outbox4j.outboxes.billing.transport.http.endpoint.invoices=" + receiverUri("/billing/invoices"),
          "outbox4j.outboxes.billing.transport.http.endpoint.ledger=" + receiverUri("/down"),
          "outbox4j.outboxes.shipping.datasource=shippingDataSource",
          "outbox4j.outboxes.shipping.tables.prefix=ms_",
          "outbox4j.outboxes.shipping.relay.max-poll=200ms",
          "outbox4j.outboxes.shipping.transport.bean=shippingTransport",
          "management.endpoints.web.exposure.include=health,outbox4j",
          "management.endpoint.health.show-details=always");

  /** A real webhook receiver: records what it accepts; {@code /down} answers 503 like an endpoint that is down. */
  private static HttpServer startReceiver() {
    HttpServer receiver;
    try {
      receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    receiver.createContext("/", exchange -> {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      if (path.equals("/down")) {
        exchange.sendResponseHeaders(503, -1);
      } else {
        RECEIVED.add(path + " " + new String(body, StandardCharsets.UTF_8));
        exchange.sendResponseHeaders(204, -1);
      }
      exchange.close();
    });
    receiver.setExecutor(RECEIVER_THREADS);
    receiver.start();
    return receiver;
  }

  private static TcpProxy startProxy() {
    RunDatabases.postgresUrl(); // creates this JVM's database before the proxy points at it
    return TcpProxy.start("127.0.0.1", 5432);
  }

  @BeforeAll
  static void businessTables() throws Exception {
    try (Connection pg = DriverManager.getConnection(RunDatabases.postgresUrl());
        Statement statement = pg.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS mb_invoices (id VARCHAR(64) PRIMARY KEY)");
    }
    try (Connection maria = DriverManager.getConnection(RunDatabases.mariadbUrl());
        Statement statement = maria.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS ms_parcels (id VARCHAR(64) PRIMARY KEY)");
    }
  }

  @AfterAll
  static void stop() {
    POSTGRES.close();
    RECEIVER.stop(0);
    RECEIVER_THREADS.shutdownNow();
  }

  private static String receiverUri(String path) {
    return "http://127.0.0.1:" + RECEIVER.getAddress().getPort() + path;
  }

  /** Two databases, each with its own transaction manager, a Transport bean, and a service using both outboxes. */
  @Configuration(proxyBeanMethods = false)
  static class TwoDatabases {
    @Bean(destroyMethod = "close")
    HikariDataSource billingDataSource() {
      return pool("billing", "jdbc:postgresql://127.0.0.1:" + POSTGRES.port() + "/" + RunDatabases.name()
          + "?user=postgres&connectTimeout=2&socketTimeout=10");
    }

    @Bean(destroyMethod = "close")
    HikariDataSource shippingDataSource() {
      return pool("shipping", RunDatabases.mariadbUrl());
    }

    @Bean
    JdbcTransactionManager billingTransactionManager(@Qualifier("billingDataSource") DataSource dataSource) {
      return new JdbcTransactionManager(dataSource);
    }

    @Bean
    JdbcTransactionManager shippingTransactionManager(@Qualifier("shippingDataSource") DataSource dataSource) {
      return new JdbcTransactionManager(dataSource);
    }

    @Bean(destroyMethod = "close")
    Transport shippingTransport() {
      return HttpTransport.fromProperties(Map.of("endpoint.parcels", receiverUri("/shipping/parcels")));
    }

    @Bean
    Orders orders(@Qualifier("billing") TransactionalOutbox billing, @Qualifier("shipping") TransactionalOutbox shipping,
        @Qualifier("billingDataSource") DataSource billingDataSource,
        @Qualifier("shippingDataSource") DataSource shippingDataSource,
        @Qualifier("billingTransactionManager") JdbcTransactionManager billingTransactions,
        @Qualifier("shippingTransactionManager") JdbcTransactionManager shippingTransactions) {
      return new Orders(billing, shipping, new JdbcTemplate(billingDataSource), new JdbcTemplate(shippingDataSource),
          new TransactionTemplate(billingTransactions), new TransactionTemplate(shippingTransactions));
    }

    private static HikariDataSource pool(String name, String url) {
      HikariConfig config = new HikariConfig();
      config.setPoolName(name);
      config.setJdbcUrl(url);
      config.setMaximumPoolSize(4);
      config.setConnectionTimeout(2_000);
      config.setValidationTimeout(1_000);
      config.setInitializationFailTimeout(-1);
      return new HikariDataSource(config);
    }
  }

  /** What an application does with two outboxes: an invoice and its message, a parcel and its message. */
  record Orders(TransactionalOutbox billing, TransactionalOutbox shipping, JdbcTemplate billingDatabase,
      JdbcTemplate shippingDatabase, TransactionTemplate billingTransaction, TransactionTemplate shippingTransaction) {

    void invoice(String id, boolean fail) {
      billingTransaction.executeWithoutResult(status -> {
        billingDatabase.update("INSERT INTO mb_invoices (id) VALUES (?)", id);
        billing.write(message("invoices", id));
        if (fail) {
          throw new IllegalStateException("refused: " + id);
        }
      });
    }

    void ship(String id, boolean fail) {
      shippingTransaction.executeWithoutResult(status -> {
        shippingDatabase.update("INSERT INTO ms_parcels (id) VALUES (?)", id);
        shipping.write(message("parcels", id));
        if (fail) {
          throw new IllegalStateException("refused: " + id);
        }
      });
    }

    long invoices(String id) {
      return billingDatabase.queryForObject("SELECT count(*) FROM mb_invoices WHERE id = ?", Long.class, id);
    }

    long parcels(String id) {
      return shippingDatabase.queryForObject("SELECT count(*) FROM ms_parcels WHERE id = ?", Long.class, id);
    }

    long billingEntries(String id) {
      return billingDatabase.queryForObject("SELECT count(*) FROM mb_outbox WHERE ordering_key = ?", Long.class, id);
    }

    long shippingEntries(String id) {
      return shippingDatabase.queryForObject("SELECT count(*) FROM ms_outbox WHERE ordering_key = ?", Long.class, id);
    }
  }

  private static Message message(String destination, String id) {
    return Message.builder().withDestination(destination).withOrderingKey(id).withPayload(id).build();
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID();
  }

  private static boolean received(String path, String id) {
    return RECEIVED.contains(path + " " + id);
  }

  private static IndicatedHealthDescriptor health(AssertableApplicationContext context, String outbox) {
    return (IndicatedHealthDescriptor) context.getBean(HealthEndpoint.class).healthForPath("outbox4j", outbox);
  }

  @Test
  void each_write_joins_its_own_datasources_transaction_and_each_relay_delivers_its_own() {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      Orders orders = context.getBean(Orders.class);
      String invoice = unique("i");
      String parcel = unique("p");
      orders.invoice(invoice, false);
      orders.ship(parcel, false);
      await().atMost(Duration.ofSeconds(20))
          .until(() -> received("/billing/invoices", invoice) && received("/shipping/parcels", parcel));
      assertThat(orders.invoices(invoice)).isOne();
      assertThat(orders.parcels(parcel)).isOne();
      assertThat(orders.shippingEntries(invoice)).isZero();
      assertThat(orders.billingEntries(parcel)).isZero();

      String refusedInvoice = unique("i");
      String refusedParcel = unique("p");
      assertThatThrownBy(() -> orders.invoice(refusedInvoice, true)).hasMessageContaining("refused");
      assertThatThrownBy(() -> orders.ship(refusedParcel, true)).hasMessageContaining("refused");
      assertThat(orders.invoices(refusedInvoice) + orders.billingEntries(refusedInvoice)).isZero();
      assertThat(orders.parcels(refusedParcel) + orders.shippingEntries(refusedParcel)).isZero();

      assertThat(context.getBean("outbox4j.billing.store", JdbcOutboxStore.class).claimStrategy())
          .isEqualTo(ClaimStrategy.LEASED_BATCHES);
      assertThat(context.getBean("outbox4j.shipping.store", JdbcOutboxStore.class).claimStrategy())
          .isEqualTo(ClaimStrategy.LEASED_ROWS);

      Relay billing = context.getBean("outbox4j.billing.relay", Relay.class);
      Relay shipping = context.getBean("outbox4j.shipping.relay", Relay.class);
      assertThat(billing.isRunning()).isTrue();
      assertThat(shipping.isRunning()).isTrue();
      context.close();
      assertThat(billing.isRunning()).isFalse();
      assertThat(shipping.isRunning()).isFalse();
    });
  }

  @Test
  void a_write_in_the_other_datasources_transaction_or_in_none_is_refused_naming_the_outbox() {
    runner.run(context -> {
      Orders orders = context.getBean(Orders.class);
      String id = unique("x");
      assertThatThrownBy(() -> orders.billingTransaction().executeWithoutResult(
          status -> orders.shipping().write(message("parcels", id))))
          .isInstanceOf(OutboxTransactionRequiredException.class)
          .hasMessageContaining("outbox 'shipping'")
          .hasMessageContaining("auto-commit");
      assertThatThrownBy(() -> orders.billing().write(message("invoices", id)))
          .isInstanceOf(OutboxTransactionRequiredException.class)
          .hasMessageContaining("outbox4j.outboxes.billing.write.without-transaction=own-transaction");
      assertThat(orders.shippingEntries(id) + orders.billingEntries(id)).isZero();
    });
  }

  @Test
  void health_and_the_endpoint_show_each_outbox_by_name_with_its_own_paused_destination() {
    runner.run(context -> {
      Orders orders = context.getBean(Orders.class);
      for (int i = 0; i < 20; i++) { // twenty keys failing alike, nothing confirmed: the destination is judged down
        String id = unique("l");
        orders.billingTransaction().executeWithoutResult(status -> orders.billing().write(message("ledger", id)));
      }
      await().atMost(Duration.ofSeconds(30))
          .until(() -> health(context, "billing").getDetails().get("pausedDestinations"), List.of("ledger")::equals);
      assertThat(health(context, "billing").getStatus()).isEqualTo(Status.UP);
      assertThat(health(context, "shipping").getStatus()).isEqualTo(Status.UP);
      assertThat(health(context, "shipping").getDetails()).doesNotContainKey("pausedDestinations");

      OutboxesEndpoint.OutboxesReport report = context.getBean(OutboxesEndpoint.class).outboxes(null);
      assertThat(report.outboxes()).containsOnlyKeys("billing", "shipping");
      assertThat(report.outboxes().get("billing").pausedDestinations())
          .extracting(OutboxEndpoint.PausedDestination::destination).containsExactly("ledger");
      assertThat(report.outboxes().get("shipping").pausedDestinations()).isEmpty();

      OutboxesEndpoint endpoint = context.getBean(OutboxesEndpoint.class);
      assertThat(endpoint.operate("billing", "destinations", "ledger", "pause", null, null, "test", null, null,
          SecurityContext.NONE).changed()).isOne();
      assertThat(endpoint.view("billing", "pauses", null)).asString().contains("ledger");
      assertThat(endpoint.view("shipping", "pauses", null)).asString().doesNotContain("ledger");
      endpoint.operate("billing", "destinations", "ledger", "discard", null, null, null, null, null,
          SecurityContext.NONE); // what the next test's relay would otherwise probe again
      assertThatThrownBy(() -> endpoint.quarantined("invoicing", null, null, null))
          .hasMessageContaining("no outbox 'invoicing'; there are [billing, shipping]");
    });
  }

  @Test
  void meters_carry_the_outbox_tag() {
    runner.run(context -> {
      Orders orders = context.getBean(Orders.class);
      orders.invoice(unique("i"), false);
      orders.ship(unique("p"), false);
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      await().atMost(Duration.ofSeconds(20)).until(() -> delivered(meters, "billing") >= 1
          && delivered(meters, "shipping") >= 1);
      assertThat(meters.get("outbox4j.pending").tag("outbox", "billing").gauge()).isNotNull();
      assertThat(meters.get("outbox4j.pending").tag("outbox", "shipping").gauge()).isNotNull();
    });
  }

  private static double delivered(MeterRegistry meters, String outbox) {
    Counter counter = meters.find("outbox4j.delivered").tag("outbox", outbox).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void a_database_cut_off_takes_down_its_own_outbox_only() {
    runner.run(context -> {
      Orders orders = context.getBean(Orders.class);
      String before = unique("i");
      orders.invoice(before, false);
      await().atMost(Duration.ofSeconds(20)).until(() -> received("/billing/invoices", before));

      POSTGRES.cut();
      try {
        await().atMost(Duration.ofSeconds(30))
            .until(() -> health(context, "billing").getStatus(), Status.DOWN::equals);
        String parcel = unique("p");
        orders.ship(parcel, false);
        await().atMost(Duration.ofSeconds(20)).until(() -> received("/shipping/parcels", parcel));
        assertThat(health(context, "shipping").getStatus()).isEqualTo(Status.UP);
        assertThat(context.getBean("outbox4j.shipping.relay", Relay.class).isRunning()).isTrue();
      } finally {
        POSTGRES.restore();
      }

      AtomicReference<String> after = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> { // the pool reconnects
        String id = unique("i");
        orders.invoice(id, false);
        after.set(id);
        return true;
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> received("/billing/invoices", after.get()));
      await().atMost(Duration.ofSeconds(30)).until(() -> health(context, "billing").getStatus(), Status.UP::equals);
    });
  }
}
