package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.micrometer.OutboxMetrics;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.actuate.OutboxHealthIndicator;
import dev.outbox4j.spring.autoconfigure.Outbox4jActuatorAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jJacksonAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jMetricsAutoConfiguration;
import dev.outbox4j.spring.autoconfigure.Outbox4jTransportAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A destination the running relay has paused, as the Actuator shows it: named by the health indicator (UP by default,
 * OUT_OF_SERVICE with {@code outbox4j.health.fail-when-destination-paused}), listed by the {@code outbox4j} endpoint,
 * and a per-destination gauge, while the other destination's messages are delivered. Real relay, real H2 store.
 */
class PausedDestinationHealthTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
          DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
          Outbox4jTransportAutoConfiguration.class, Outbox4jJacksonAutoConfiguration.class,
          Outbox4jAutoConfiguration.class, Outbox4jMetricsAutoConfiguration.class,
          Outbox4jActuatorAutoConfiguration.class))
      .withUserConfiguration(ErpDown.class)
      .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
          "management.endpoints.web.exposure.include=outbox4j");

  /** A transport whose destination {@code erp} answers like an endpoint that is down; every other one confirms. */
  @Configuration(proxyBeanMethods = false)
  static class ErpDown {
    static final List<String> DELIVERED = new CopyOnWriteArrayList<>();

    @Bean
    Transport transport() {
      return InProcessTransport.of(message -> {
        if (message.destination().equals("erp")) {
          return DeliveryOutcome.retryable("HTTP 503 from https://erp.example/hook");
        }
        DELIVERED.add(new String(message.payload(), StandardCharsets.UTF_8));
        return DeliveryOutcome.delivered();
      });
    }

    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  private static void write(JdbcOutboxStore store, String destination, String payload) {
    store.enqueue(Message.builder().withDestination(destination).withOrderingKey(destination + "-" + payload)
        .withPayload(payload).build());
  }

  @Test
  void a_paused_destination_is_named_by_health_and_endpoint_while_the_others_are_delivered() {
    runner.run(context -> {
      JdbcOutboxStore store = context.getBean(JdbcOutboxStore.class);
      Relay relay = context.getBean(Relay.class);
      OutboxHealthIndicator health = context.getBean(OutboxHealthIndicator.class);
      assertThat(health.health(true).getDetails()).doesNotContainKey("pausedDestinations");

      for (int i = 0; i < 3; i++) {
        write(store, "crm", "c" + i);
      }
      for (int i = 0; i < 20; i++) {
        write(store, "erp", "e" + i);
      }
      relay.wakeUp();
      await().atMost(Duration.ofSeconds(20)).until(() -> !relay.pausedDestinations().isEmpty()
          && ErpDown.DELIVERED.containsAll(List.of("c0", "c1", "c2")));

      Health report = health.health(true);
      assertThat(report.getStatus()).isEqualTo(Status.UP);
      assertThat(report.getDetails()).containsEntry("degraded", true)
          .containsEntry("pausedDestinations", List.of("erp"));

      OutboxEndpoint.QuarantineReport endpoint = context.getBean(OutboxEndpoint.class).quarantined(null, null);
      assertThat(endpoint.entries()).isEmpty();
      assertThat(endpoint.pausedDestinations()).singleElement().satisfies(paused -> {
        assertThat(paused.destination()).isEqualTo("erp");
        assertThat(paused.lastError()).isEqualTo("HTTP 503 from https://erp.example/hook");
        assertThat(paused.nextProbeAt()).isAfterOrEqualTo(paused.pausedSince());
      });

      MeterRegistry registry = context.getBean(MeterRegistry.class);
      context.getBean(OutboxMetrics.class).bindTo(registry); // what Boot's metrics auto-configuration does
      assertThat(registry.get("outbox4j.destination.paused").tag("destination", "erp").gauge().value())
          .isEqualTo(1);
    });
  }

  @Test
  void with_fail_when_destination_paused_a_paused_destination_makes_the_outbox_out_of_service() {
    runner.withPropertyValues("outbox4j.health.fail-when-destination-paused=true").run(context -> {
      JdbcOutboxStore store = context.getBean(JdbcOutboxStore.class);
      Relay relay = context.getBean(Relay.class);
      OutboxHealthIndicator health = context.getBean(OutboxHealthIndicator.class);
      assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);

      for (int i = 0; i < 20; i++) { // twenty different entries failing with nothing confirmed: judged down at once
        write(store, "erp", "x" + i);
      }
      relay.wakeUp();
      await().atMost(Duration.ofSeconds(20)).until(() -> health.health(true).getStatus(),
          Status.OUT_OF_SERVICE::equals);
      assertThat(health.health(true).getDetails()).containsEntry("pausedDestinations", List.of("erp"));
    });
  }
}
