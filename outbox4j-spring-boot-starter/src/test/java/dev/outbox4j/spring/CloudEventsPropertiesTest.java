package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.Message;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTransportAutoConfiguration;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code outbox4j.cloudevents.*} reaches the relay: the mapped destination is delivered as a CloudEvent. */
class CloudEventsPropertiesTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
          DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
          Outbox4jTransportAutoConfiguration.class, Outbox4jAutoConfiguration.class))
      .withUserConfiguration(Recording.class)
      .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
          "outbox4j.write.without-transaction=own-transaction");

  @Test
  void a_mapped_destination_is_delivered_as_a_cloudevent_and_the_others_unchanged() {
    runner.withPropertyValues("outbox4j.cloudevents[orders.created].source=/shop",
            "outbox4j.cloudevents[orders.created].type=com.example.order",
            "outbox4j.cloudevents[orders.created].mode=structured")
        .run(context -> {
          assertThat(context).hasNotFailed();
          Message mapped = Message.builder().withDestination("orders.created").withPayload("{}").build();
          Message plain = Message.builder().withDestination("audit").withPayload("{}").build();
          context.getBean(TransactionalOutbox.class).write(mapped);
          context.getBean(TransactionalOutbox.class).write(plain);
          RecordingTransport transport = context.getBean(RecordingTransport.class);

          await().atMost(Duration.ofSeconds(30)).until(() -> transport.delivered.size() == 2);
          assertThat(transport.delivered.get(mapped.id().toString())).isEqualTo(
              new CloudEvent(mapped.id().toString(), "/shop", "com.example.order",
                  transport.delivered.get(mapped.id().toString()).time(), mapped.contentType(), null, null, null, null,
                  CloudEventsMapping.Mode.STRUCTURED));
          assertThat(transport.delivered.get(plain.id().toString())).isEqualTo(RecordingTransport.NONE);
        });
  }

  @Test
  void a_mapping_without_its_type_is_refused_naming_the_property() {
    runner.withPropertyValues("outbox4j.cloudevents.orders.source=/shop")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("outbox4j.cloudevents[orders].type is required"));
  }

  @Configuration(proxyBeanMethods = false)
  static class Recording {
    @Bean
    RecordingTransport transport() {
      return new RecordingTransport();
    }
  }

  /** Records each delivery by message id: its CloudEvent, or {@link #NONE} for a plain delivery. */
  static final class RecordingTransport implements Transport {
    static final CloudEvent NONE = new CloudEvent("-", "-", "-", java.time.Instant.EPOCH, "-", null, null, null, null,
        CloudEventsMapping.Mode.BINARY);
    final Map<String, CloudEvent> delivered = new ConcurrentHashMap<>();

    @Override
    public CompletionStage<DeliveryOutcome> deliver(Message message) {
      delivered.put(message.id().toString(), NONE);
      return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    }

    @Override
    public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
      delivered.put(message.id().toString(), event);
      return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    }
  }
}
