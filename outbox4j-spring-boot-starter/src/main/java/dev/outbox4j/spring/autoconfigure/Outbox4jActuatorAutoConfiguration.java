package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.doctor.DatabaseDoctor;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.actuate.OutboxHealthIndicator;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code outbox4j} health indicator (when Boot's health module is present; switch it off with
 * {@code management.health.outbox4j.enabled=false}) and the {@code outbox4j} endpoint (when Actuator is present and the
 * endpoint is available: exposed and not switched off).
 */
@AutoConfiguration(after = Outbox4jAutoConfiguration.class)
@ConditionalOnBean(JdbcOutboxStore.class)
@Conditional(OutboxForms.Single.class)
public class Outbox4jActuatorAutoConfiguration {

  /** Creates the configuration; called by Spring. */
  public Outbox4jActuatorAutoConfiguration() {}

  /** The health indicator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("outbox4j")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "outbox4jHealthIndicator")
    OutboxHealthIndicator outbox4jHealthIndicator(JdbcOutboxStore store, Outbox4jProperties properties,
        ObjectProvider<Relay> relay) {
      return new OutboxHealthIndicator(store, Clock.systemUTC(), properties.getHealth().getMaxLag(),
          pausedDestinations(relay), properties.getHealth().isFailWhenDestinationPaused());
    }
  }

  /** The quarantine endpoint, with the database doctor over the application's {@link DataSource}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class Quarantine {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    OutboxEndpoint outbox4jEndpoint(JdbcOutboxStore store, ObjectProvider<Relay> relay, DataSource dataSource,
        Outbox4jProperties properties) {
      Duration lease = properties.getRelay().getLease() == null ? RelayBuilder.DEFAULT_LEASE
          : properties.getRelay().getLease();
      DatabaseDoctor doctor = new DatabaseDoctor(dataSource, store.tableNames(), lease, Clock.systemUTC(),
          store.preparedStatements());
      return new OutboxEndpoint(store, Clock.systemUTC(), pausedDestinations(relay),
          () -> Optional.of(doctor.examine()));
    }
  }

  /** The relay's paused destinations, looked up when asked (none without a relay bean). */
  static Supplier<List<DestinationStatus>> pausedDestinations(ObjectProvider<Relay> relay) {
    return () -> {
      Relay found = relay.getIfAvailable();
      return found == null ? List.of() : found.pausedDestinations();
    };
  }
}
