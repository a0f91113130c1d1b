package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.app.OrderPlaced;
import dev.outbox4j.spring.autoconfigure.Outbox4jActuatorAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jJacksonAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jMetricsAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jOutboxesAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTransportAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTracingAutoConfiguration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The wiring rules of several outboxes, on one embedded H2 database (two outboxes by table prefix, as tenants in one
 * database are): what is made per name and injected by qualifier, what the single form's beans do then, and every
 * configuration mistake refused with the property it concerns.
 */
class SeveralOutboxesConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
          DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
          JacksonAutoConfiguration.class, Outbox4jTransportAutoConfiguration.class,
          Outbox4jTracingAutoConfiguration.class, Outbox4jJacksonAutoConfiguration.class,
          Outbox4jAutoConfiguration.class, Outbox4jOutboxesAutoConfiguration.class,
          Outbox4jMetricsAutoConfiguration.class, Outbox4jActuatorAutoConfiguration.class))
      .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
          "outbox4j.outboxes.red.tables.prefix=red_", "outbox4j.outboxes.blue.tables.prefix=blue_");

  private static TransactionalOutbox outbox(AssertableApplicationContext context, String name) {
    return BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), TransactionalOutbox.class, name);
  }

  private static long rows(AssertableApplicationContext context, String table) {
    return new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("SELECT count(*) FROM " + table,
        Long.class);
  }

  private static long rows(AssertableApplicationContext context, String table, String key) {
    return new JdbcTemplate(context.getBean(DataSource.class)).queryForObject("SELECT count(*) FROM " + table
        + " WHERE ordering_key = ?", Long.class, key);
  }

  @Test
  void each_name_gets_its_own_store_and_writer_injectable_by_qualifier_and_the_single_outboxs_beans_back_off() {
    runner.run(context -> {
      assertThat(context).hasNotFailed()
          .doesNotHaveBean("outbox4jStore").doesNotHaveBean("transactionalOutbox")
          .doesNotHaveBean("outbox4jHealthIndicator");
      assertThat(context.getBeansOfType(TransactionalOutbox.class)).hasSize(2);
      assertThat(outbox(context, "red").name()).isEqualTo("red");
      assertThat(outbox(context, "blue").name()).isEqualTo("blue");
      JdbcOutboxStore blue = BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(),
          JdbcOutboxStore.class, "blue");
      assertThat(blue.tableNames().prefix()).isEqualTo("blue_");

      TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
      transaction.executeWithoutResult(status -> outbox(context, "red").write(
          Message.builder().withDestination("audit").build()));
      assertThat(rows(context, "red_outbox")).isOne();
      assertThat(rows(context, "blue_outbox")).isZero();
      assertThat(context).doesNotHaveBean(Relay.class); // no transport named: these outboxes only write
    });
  }

  @Test
  void an_outbox_with_a_transport_gets_its_relay_and_one_without_does_not() {
    runner.withBean("audit", Transport.class, () -> InProcessTransport.of(message ->
            dev.outbox4j.spi.DeliveryOutcome.delivered()))
        .withPropertyValues("outbox4j.outboxes.red.transport.bean=audit").run(context -> {
          assertThat(context).hasNotFailed().hasBean("outbox4j.red.relay").hasBean("outbox4j.red.relayLifecycle")
              .doesNotHaveBean("outbox4j.blue.relay");
          assertThat(context.getBean("outbox4j.red.relay", Relay.class).isRunning()).isTrue();
        });
  }

  @Test
  void the_single_outboxs_properties_beside_named_outboxes_are_refused_naming_them() {
    runner.withPropertyValues("outbox4j.tables.prefix=x_", "outbox4j.relay.max-poll=1s").run(context ->
        assertThat(context).getFailure()
            .hasMessageContaining("outbox4j.outboxes (red, blue) and the single outbox's properties "
                + "[outbox4j.relay, outbox4j.tables] are both set"));
  }

  @Test
  void a_datasource_or_transport_bean_that_does_not_exist_is_refused_naming_the_property() {
    runner.withPropertyValues("outbox4j.outboxes.red.datasource=billingDataSource").run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("outbox4j.outboxes.red.datasource names no DataSource bean: 'billingDataSource'; "
                + "the DataSource beans are [dataSource]"));
    runner.withPropertyValues("outbox4j.outboxes.blue.transport.bean=carrier").run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("outbox4j.outboxes.blue.transport.bean names no Transport bean: 'carrier'"));
    runner.withPropertyValues("outbox4j.outboxes.blue.transport.type=carrier-pigeon").run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("outbox4j.outboxes.blue.transport.type must be one of [http, kafka, nats, "
                + "rabbitmq], was 'carrier-pigeon'"));
    runner.withPropertyValues("outbox4j.outboxes.blue.retry.max-attempts=0",
        "outbox4j.outboxes.blue.transport.type=http", "outbox4j.outboxes.blue.transport.http.endpoint.a=http://x/")
        .run(context -> assertThat(context).getFailure()
            .hasStackTraceContaining("outbox4j.outboxes.blue.retry: maxAttempts must be at least 1, was 0"));
  }

  @Test
  void each_outbox_has_its_own_claim_strategy() {
    runner.withPropertyValues("outbox4j.outboxes.blue.claim-strategy=leased-batches").run(context -> {
      assertThatThrownBy(() -> BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(),
          JdbcOutboxStore.class, "blue").claimStrategy()).hasMessageContaining("LEASED_BATCHES needs PostgreSQL");
      assertThat(BeanFactoryAnnotationUtils.qualifiedBeanOfType(context.getBeanFactory(), JdbcOutboxStore.class, "red")
          .claimStrategy()).isEqualTo(ClaimStrategy.LEASED_ROWS);
    });
  }

  @Test
  void outbox_events_go_to_the_outbox_events_outbox_names_and_are_refused_when_none_is_named() {
    runner.withPropertyValues("outbox4j.events.outbox=blue").run(context -> {
      TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
      transaction.executeWithoutResult(status -> context.publishEvent(new OrderPlaced("o-1", 2)));
      assertThat(rows(context, "blue_outbox", "o-1")).isOne();
      assertThat(rows(context, "red_outbox", "o-1")).isZero();
    });
    runner.run(context -> {
      TransactionTemplate transaction = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
      assertThatThrownBy(() -> transaction.executeWithoutResult(
          status -> context.publishEvent(new OrderPlaced("o-2", 2))))
          .hasMessageContaining("outbox4j.events.outbox must name the one events are written to");
      assertThat(rows(context, "blue_outbox", "o-2") + rows(context, "red_outbox", "o-2")).isZero();
    });
    runner.withPropertyValues("outbox4j.events.outbox=green").run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("outbox4j.events.outbox names no outbox: 'green'; there are [red, blue]"));
  }
}
