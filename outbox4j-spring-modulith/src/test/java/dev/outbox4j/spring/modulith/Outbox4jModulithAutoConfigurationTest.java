package dev.outbox4j.spring.modulith;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spring.OutboxEventSerializer;
import dev.outbox4j.spring.TransactionalOutbox;
import dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jJacksonAutoConfiguration;
import dev.outbox4j.spring.modulith.config.Shipped;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.RoutingTarget;
import org.springframework.modulith.events.config.EventExternalizationAutoConfiguration;
import org.springframework.modulith.events.support.DelegatingEventExternalizer;

/**
 * The auto-configuration's decisions, with Modulith's Kafka externalizer on the class path (as in an application that
 * used it before): it refuses to run beside it, names both switches, and each switch leaves exactly one externalizer.
 */
class Outbox4jModulithAutoConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
          DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
          Outbox4jJacksonAutoConfiguration.class, Outbox4jAutoConfiguration.class,
          EventExternalizationAutoConfiguration.class, kafkaExternalizer(), Outbox4jModulithAutoConfiguration.class))
      .withUserConfiguration(KafkaApplication.class)
      .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");

  /** An application in the events' package with a Kafka template, so Modulith's Kafka externalizer is created. */
  @Configuration(proxyBeanMethods = false)
  @AutoConfigurationPackage(basePackageClasses = Shipped.class)
  static class KafkaApplication {
    @Bean
    KafkaTemplate<Object, Object> kafkaTemplate() {
      return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of()));
    }
  }

  @Test
  void modulith_s_own_externalizer_beside_outbox4j_fails_the_start_naming_both_switches() {
    runner.run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("Spring Modulith's own event externalizer")
          .hasMessageContaining("spring.modulith.events.externalization.enabled=false")
          .hasMessageContaining("outbox4j.modulith.enabled=false");
    });
  }

  @Test
  void with_modulith_s_externalization_off_outbox4j_externalizes_the_annotated_events() {
    runner.withPropertyValues("spring.modulith.events.externalization.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(ModulithEventWriter.class)
          .doesNotHaveBean(DelegatingEventExternalizer.class);
      Message message = context.getBean(ModulithEventWriter.class).toMessage(new Shipped("parcel-7"));
      assertThat(message.destination()).isEqualTo("shipments/shipped");
      assertThat(message.orderingKey()).contains("parcel-7");
      assertThat(new String(message.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"parcel\":\"parcel-7\"}");
      assertThat(context.getBean(EventExternalizationConfiguration.class).supports("not externalized")).isFalse();
    });
  }

  @Test
  void without_a_broker_externalizer_outbox4j_takes_modulith_s_own_configuration() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
            Outbox4jJacksonAutoConfiguration.class, Outbox4jAutoConfiguration.class,
            EventExternalizationAutoConfiguration.class, Outbox4jModulithAutoConfiguration.class))
        .withUserConfiguration(KafkaApplication.class)
        .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(ModulithEventWriter.class)
              .hasSingleBean(EventExternalizationConfiguration.class)
              .hasBean("eventExternalizationConfiguration")
              .doesNotHaveBean("outbox4jEventExternalizationConfiguration");
          assertThat(context.getBean(ModulithEventWriter.class).toMessage(new Shipped("p")).destination())
              .isEqualTo("shipments/shipped");
        });
  }

  @Test
  void with_outbox4j_s_off_modulith_keeps_its_own_externalizer() {
    runner.withPropertyValues("outbox4j.modulith.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(ModulithEventWriter.class)
          .hasSingleBean(DelegatingEventExternalizer.class);
    });
  }

  @Test
  void an_application_configuration_s_mapping_target_key_and_headers_make_the_message() {
    EventExternalizationConfiguration configuration = EventExternalizationConfiguration.externalizing()
        .selectByType(Shipped.class)
        .mapping(Shipped.class, shipped -> Map.of("id", shipped.parcel()))
        .headers(Shipped.class, shipped -> java.util.Collections.singletonMap("x-parcel", shipped.parcel()))
        .route(Shipped.class, shipped -> RoutingTarget.forTarget("parcels").andKey("p-" + shipped.parcel()))
        .build();
    OutboxEventSerializer serializer = event -> event.toString().getBytes(StandardCharsets.UTF_8);
    ModulithEventWriter writer = new ModulithEventWriter(configuration, unusedOutbox(), serializer,
        new StandardEvaluationContext());

    Message message = writer.toMessage(new Shipped("9"));

    assertThat(message.destination()).isEqualTo("parcels");
    assertThat(message.orderingKey()).contains("p-9");
    assertThat(new String(message.payload(), StandardCharsets.UTF_8)).isEqualTo("{id=9}");
    assertThat(message.contentType()).isEqualTo("application/json");
    assertThat(message.headers()).containsEntry("x-parcel", "9");
  }

  private static TransactionalOutbox unusedOutbox() {
    dev.outbox4j.Outbox<java.sql.Connection> refusing = new dev.outbox4j.Outbox<>() {
      @Override
      public void write(java.sql.Connection transaction, Message message) {
        throw new AssertionError("nothing is written here");
      }

      @Override
      public void writeAll(java.sql.Connection transaction, java.util.List<Message> messages) {
        throw new AssertionError("nothing is written here");
      }
    };
    return new TransactionalOutbox(new org.springframework.jdbc.datasource.SimpleDriverDataSource(), refusing, null,
        () -> { });
  }

  private static Class<?> kafkaExternalizer() {
    try {
      return Class.forName("org.springframework.modulith.events.kafka.KafkaEventExternalizerConfiguration");
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }
}
