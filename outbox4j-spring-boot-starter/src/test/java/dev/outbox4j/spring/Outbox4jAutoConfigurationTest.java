package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.Message;
import dev.outbox4j.Outbox;
import dev.outbox4j.Relay;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.flow.JdbcFlowLedger;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import dev.outbox4j.json.JsonFlowStateCodec;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.micrometer.OutboxMetrics;
import dev.outbox4j.opentelemetry.TracingInbox;
import dev.outbox4j.opentelemetry.TracingOutbox;
import dev.outbox4j.opentelemetry.TracingTransport;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.actuate.OutboxHealthIndicator;
import dev.outbox4j.spring.autoconfigure.Outbox4jActuatorAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jJacksonAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jMetricsAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jSchemaMigration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTracingAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTransportAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Every auto-configuration and back-off rule of the starter, on an embedded H2 database. */
class Outbox4jAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
          DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
          Outbox4jTransportAutoConfiguration.class, Outbox4jTracingAutoConfiguration.class,
          Outbox4jJacksonAutoConfiguration.class, Outbox4jAutoConfiguration.class,
          Outbox4jMetricsAutoConfiguration.class, Outbox4jActuatorAutoConfiguration.class))
      .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

  @Test
  void a_data_source_gets_the_store_the_transactional_writer_the_event_writer_and_a_migration() {
    runner.run(context -> {
      assertThat(context).hasNotFailed()
          .hasSingleBean(JdbcOutboxStore.class)
          .hasSingleBean(TransactionalOutbox.class)
          .hasSingleBean(OutboxEventWriter.class)
          .hasSingleBean(OutboxHealthIndicator.class);
      assertThat(context.getBean(Outbox4jSchemaMigration.class).isActive()).isTrue();
      assertThat(context.getBean(JdbcOutboxStore.class).tableNames().prefix()).isEqualTo("outbox4j_");
    });
  }

  @Test
  void without_transaction_own_transaction_lets_a_write_outside_a_transaction_commit_on_its_own() {
    Message message = Message.builder().withDestination("audit").build();
    runner.run(context -> org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> context.getBean(TransactionalOutbox.class).write(message))
        .isInstanceOf(OutboxTransactionRequiredException.class));
    runner.withPropertyValues("outbox4j.write.without-transaction=own-transaction").run(context -> {
      context.getBean(TransactionalOutbox.class).write(message);
      assertThat(context.getBean(JdbcOutboxStore.class).find(message.id())).isPresent();
    });
  }

  @Test
  void without_a_data_source_nothing_is_created() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(Outbox4jTransportAutoConfiguration.class,
            Outbox4jAutoConfiguration.class, Outbox4jActuatorAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcOutboxStore.class)
            .doesNotHaveBean(TransactionalOutbox.class).doesNotHaveBean(OutboxHealthIndicator.class));
  }

  @Test
  void outbox4j_enabled_false_switches_everything_off() {
    runner.withPropertyValues("outbox4j.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcOutboxStore.class)
            .doesNotHaveBean(TransactionalOutbox.class).doesNotHaveBean(OutboxEventWriter.class));
  }

  @Test
  void beans_of_the_application_win_over_the_starters() {
    runner.withUserConfiguration(OwnBeans.class).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(JdbcOutboxStore.class)).isSameAs(context.getBean("ownStore"));
      assertThat(context.getBean(TransactionalOutbox.class)).isSameAs(context.getBean("ownOutbox"));
      assertThat(context.getBean(JdbcOutboxStore.class).tableNames().prefix()).isEqualTo("own_");
    });
  }

  @Test
  void without_a_transport_there_is_no_relay() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Relay.class)
        .doesNotHaveBean(RelayLifecycle.class).doesNotHaveBean(Transport.class));
  }

  @Test
  void a_transport_bean_gets_a_relay_started_with_the_context_and_closed_with_it() {
    runner.withUserConfiguration(InProcess.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Relay.class).hasSingleBean(RelayLifecycle.class);
      assertThat(context.getBean(Relay.class).isRunning()).isTrue();
      Relay relay = context.getBean(Relay.class);
      context.close();
      assertThat(relay.isRunning()).isFalse();
    });
  }

  @Test
  void the_claim_strategy_property_reaches_the_store_and_defaults_to_the_databases_own() {
    runner.run(context -> assertThat(context.getBean(JdbcOutboxStore.class).claimStrategy())
        .as("H2's default").isEqualTo(ClaimStrategy.LEASED_ROWS));
    runner.withPropertyValues("outbox4j.claim-strategy=leased-batches")
        .run(context -> assertThatThrownBy(() -> context.getBean(JdbcOutboxStore.class).claimStrategy())
            .hasMessageContaining("LEASED_BATCHES needs PostgreSQL"));
  }

  @Test
  void the_stores_prepared_statements_are_off_unless_the_relay_property_asks() {
    runner.run(context -> assertThat(context.getBean(JdbcOutboxStore.class).preparedStatements()).isFalse());
    runner.withPropertyValues("outbox4j.relay.prepared-statements=true")
        .run(context -> assertThat(context.getBean(JdbcOutboxStore.class).preparedStatements()).isTrue());
  }

  @Test
  void the_store_is_closed_with_the_context_after_the_relay_that_depends_on_it() {
    runner.withUserConfiguration(InProcess.class).run(context -> {
      ConfigurableListableBeanFactory beans = context.getBeanFactory();
      assertThat(beans.getBeanDefinition("outbox4jStore").getDestroyMethodName()).isEqualTo("close");
      assertThat(beans.getDependentBeans("outbox4jStore"))
          .as("destroyed before the store, so the store's claim connection outlives the relay")
          .contains("outbox4jRelay");
    });
  }

  @Test
  void the_wake_up_listener_runs_beside_a_relay_listens_only_on_postgresql_and_can_be_switched_off() {
    runner.withUserConfiguration(InProcess.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(WakeUpListenerLifecycle.class);
      WakeUpListenerLifecycle listener = context.getBean(WakeUpListenerLifecycle.class);
      assertThat(listener.isRunning()).as("H2 has no NOTIFY").isFalse();
      assertThat(listener.channel()).isNull();
    });
    runner.withUserConfiguration(InProcess.class).withPropertyValues("outbox4j.relay.wake-up-listener.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Relay.class)
            .doesNotHaveBean(WakeUpListenerLifecycle.class));
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WakeUpListenerLifecycle.class));
  }

  @Test
  void outbox4j_relay_enabled_false_leaves_a_write_only_application() {
    runner.withUserConfiguration(InProcess.class).withPropertyValues("outbox4j.relay.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Relay.class)
            .hasSingleBean(TransactionalOutbox.class));
  }

  @Test
  void transport_type_rabbitmq_builds_the_rabbitmq_transport_from_its_properties() {
    runner.withPropertyValues("outbox4j.transport.type=rabbitmq", "outbox4j.transport.rabbitmq.host=127.0.0.1",
            "outbox4j.transport.rabbitmq.confirm-timeout=3s", "outbox4j.relay.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(RabbitMqTransport.class));
  }

  @Test
  void transport_type_kafka_binds_dotted_kafka_keys() {
    runner.withPropertyValues("outbox4j.transport.type=kafka", "outbox4j.transport.kafka.bootstrap.servers=127.0.0.1:9",
            "outbox4j.transport.kafka.kafka.compression.type=lz4", "outbox4j.relay.enabled=false")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(KafkaTransport.class);
          assertThat(context.getBean(dev.outbox4j.spring.autoconfigure.Outbox4jProperties.class).getTransport()
              .getKafka()).containsEntry("bootstrap.servers", "127.0.0.1:9")
              .containsEntry("kafka.compression.type", "lz4");
        });
  }

  @Test
  void reuse_spring_client_takes_kafka_bootstrap_servers_from_spring_kafka() {
    runner.withPropertyValues("outbox4j.transport.type=kafka", "outbox4j.transport.reuse-spring-client=true",
            "spring.kafka.bootstrap-servers=127.0.0.1:9,127.0.0.1:10", "outbox4j.relay.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(KafkaTransport.class));
    runner.withPropertyValues("outbox4j.transport.type=kafka", "outbox4j.transport.reuse-spring-client=true",
            "spring.kafka.bootstrap-servers=bad host", "outbox4j.relay.enabled=false")
        .run(context -> assertThat(context).hasFailed());
  }

  @Test
  void reuse_spring_client_takes_rabbitmq_settings_from_the_applications_connection_factory() {
    runner.withBean(org.springframework.amqp.rabbit.connection.ConnectionFactory.class, () -> {
      var factory = new org.springframework.amqp.rabbit.connection.CachingConnectionFactory("127.0.0.9", 5699);
      factory.setUsername("orders-app");
      factory.setVirtualHost("shop");
      return factory;
    }).withPropertyValues("outbox4j.transport.type=rabbitmq", "outbox4j.transport.reuse-spring-client=true",
            "outbox4j.transport.rabbitmq.confirm-timeout=3s", "outbox4j.relay.enabled=false")
        .run(context -> assertThat(context.getBean(RabbitMqTransport.class).toString())
            .contains("127.0.0.9:5699shop as orders-app").contains("confirmTimeout=PT3S"));
    runner.withPropertyValues("outbox4j.transport.type=rabbitmq", "outbox4j.transport.reuse-spring-client=true")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("needs a single Spring AMQP ConnectionFactory bean"));
  }

  @Test
  void a_misspelt_transport_property_fails_start_up_naming_it() {
    runner.withPropertyValues("outbox4j.transport.type=rabbitmq", "outbox4j.transport.rabbitmq.hots=127.0.0.1")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("unknown rabbitmq properties: [hots]"));
  }

  @Test
  void a_transport_type_whose_module_is_missing_fails_start_up_naming_the_dependency() {
    runner.withClassLoader(new FilteredClassLoader(KafkaTransport.class))
        .withPropertyValues("outbox4j.transport.type=kafka", "outbox4j.transport.kafka.bootstrap.servers=x:9092")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("add the dependency dev.outbox4j:outbox4j-kafka"));
  }

  @Test
  void an_unknown_transport_type_fails_start_up_listing_the_known_ones() {
    runner.withPropertyValues("outbox4j.transport.type=carrier-pigeon")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("must be one of [http, kafka, nats, rabbitmq], was 'carrier-pigeon'"));
  }

  @Test
  void a_missing_transport_module_without_a_type_means_no_transport_bean() {
    runner.withClassLoader(new FilteredClassLoader(RabbitMqTransport.class, KafkaTransport.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Transport.class));
  }

  @Test
  void relay_properties_bind_and_an_out_of_range_one_fails_start_up_naming_it() {
    runner.withUserConfiguration(InProcess.class).withPropertyValues("outbox4j.relay.batch-size=0")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("batchSize must be 1..10000, was 0"));
    runner.withUserConfiguration(InProcess.class)
        .withPropertyValues("outbox4j.relay.lease=5s", "outbox4j.relay.delivery-timeout=6s")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("deliveryTimeout (PT6S) must be below the lease (PT5S)"));
    runner.withUserConfiguration(InProcess.class)
        .withPropertyValues("outbox4j.relay.batch-size=50", "outbox4j.relay.lease=1m", "outbox4j.retry.kind=linear",
            "outbox4j.retry.max-attempts=3")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Relay.class));
  }

  @Test
  void limits_and_table_names_are_validated_with_the_option_named() {
    runner.withPropertyValues("outbox4j.limits.max-payload-bytes=0")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("outbox4j.limits: maxPayloadBytes must be positive"));
    runner.withPropertyValues("outbox4j.tables.prefix=bad-prefix")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("table prefix must match"));
    runner.withPropertyValues("outbox4j.retry.max-attempts=0")
        .withUserConfiguration(InProcess.class)
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("outbox4j.retry: "));
  }

  @Test
  void a_type_mismatch_in_a_property_fails_binding_with_the_property_named() {
    runner.withPropertyValues("outbox4j.relay.lease=soon")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("outbox4j.relay.lease"));
  }

  @Test
  void the_inbox_and_the_flow_ledger_appear_only_when_enabled() {
    runner.run(context -> assertThat(context).doesNotHaveBean(JdbcInbox.class).doesNotHaveBean(JdbcFlowLedger.class));
    runner.withPropertyValues("outbox4j.inbox.enabled=true", "outbox4j.flow-ledger.enabled=true")
        .withUserConfiguration(Codec.class)
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(JdbcInbox.class)
            .hasSingleBean(JdbcFlowLedger.class));
    runner.withPropertyValues("outbox4j.flow-ledger.enabled=true")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(JdbcFlowLedger.class));
  }

  @Test
  void migration_can_be_switched_off() {
    runner.withPropertyValues("outbox4j.migrate=never")
        .run(context -> assertThat(context.getBean(Outbox4jSchemaMigration.class).isActive()).isFalse());
  }

  @Test
  void a_customizer_adjusts_and_decorates_what_properties_cannot_express() {
    runner.withUserConfiguration(InProcess.class, Customizing.class)
        .withPropertyValues("outbox4j.tracing.enabled=false").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean("outbox4jWriter")).isInstanceOf(CountingWriter.class);
        });
  }

  @Test
  void tracing_wraps_the_writer_and_the_transport_unless_switched_off() {
    runner.withUserConfiguration(InProcess.class).run(context -> {
      assertThat(context.getBean("outbox4jWriter")).isInstanceOf(TracingOutbox.class);
      assertThat(context.getBean(Outbox4jCustomizer.class).decorateTransport(InProcessTransport.consuming(m -> { })))
          .isInstanceOf(TracingTransport.class);
    });
    runner.withPropertyValues("outbox4j.tracing.enabled=false")
        .run(context -> assertThat(context.getBean("outbox4jWriter")).isNotInstanceOf(TracingOutbox.class));
    runner.withPropertyValues("outbox4j.inbox.enabled=true")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(TracingInbox.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(TracingInbox.class));
    runner.withClassLoader(new FilteredClassLoader(TracingTransport.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox4jCustomizer.class));
  }

  @Test
  void metrics_bind_when_a_meter_registry_exists() {
    runner.run(context -> assertThat(context).doesNotHaveBean(OutboxMetrics.class));
    runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(OutboxMetrics.class));
    runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withClassLoader(new FilteredClassLoader(OutboxMetrics.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxMetrics.class));
  }

  @Test
  void the_health_indicator_follows_actuators_switches() {
    runner.withPropertyValues("management.health.outbox4j.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(OutboxHealthIndicator.class));
    runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(OutboxHealthIndicator.class));
  }

  @Test
  void the_quarantine_endpoint_exists_only_when_exposed() {
    runner.run(context -> assertThat(context).doesNotHaveBean(OutboxEndpoint.class));
    runner.withPropertyValues("management.endpoints.web.exposure.include=outbox4j")
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(OutboxEndpoint.class));
  }

  @Test
  void events_are_serialized_with_the_applications_json_mapper() {
    runner.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
        .run(context -> assertThat(new String(context.getBean(OutboxEventSerializer.class)
            .serialize(new Shipped("o-1", 3)))).isEqualTo("{\"orderId\":\"o-1\",\"parcels\":3}"));
    runner.run(context -> assertThat(context).doesNotHaveBean(OutboxEventSerializer.class));
    runner.withPropertyValues("outbox4j.events.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(OutboxEventWriter.class));
  }

  @OutboxEvent(destination = "shipments", orderingKey = "orderId")
  record Shipped(String orderId, int parcels) {}

  @Configuration(proxyBeanMethods = false)
  static class InProcess {
    @Bean
    Transport transport() {
      return InProcessTransport.consuming(message -> { });
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    @Bean
    JdbcOutboxStore ownStore(javax.sql.DataSource dataSource) {
      return JdbcOutboxStore.builder(dataSource).withTablePrefix("own_").build();
    }

    @Bean
    TransactionalOutbox ownOutbox(javax.sql.DataSource dataSource, JdbcOutboxStore store) {
      return new TransactionalOutbox(dataSource, store.outbox(), null, () -> { });
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Codec {
    @Bean
    FlowStateCodec<String> codec() {
      return JsonFlowStateCodec.of(String.class);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Customizing {
    @Bean
    Outbox4jCustomizer counting() {
      return new Outbox4jCustomizer() {
        @Override
        public Outbox<Connection> decorateWriter(Outbox<Connection> outbox) {
          return new CountingWriter(outbox);
        }
      };
    }
  }

  record CountingWriter(Outbox<Connection> delegate) implements Outbox<Connection> {
    @Override
    public void write(Connection transaction, Message message) {
      delegate.write(transaction, message);
    }

    @Override
    public void writeAll(Connection transaction, List<Message> messages) {
      delegate.writeAll(transaction, messages);
    }
  }
}
