package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.RelayBuilder;
import dev.outbox4j.jdbc.doctor.DatabaseDoctor;
import dev.outbox4j.spring.OutboxEventRoute;
import dev.outbox4j.spring.OutboxEventSerializer;
import dev.outbox4j.spring.OutboxEventWriter;
import dev.outbox4j.spring.TransactionalOutbox;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.actuate.OutboxHealthIndicator;
import dev.outbox4j.spring.actuate.OutboxesEndpoint;
import dev.outbox4j.spring.autoconfigure.Outbox4jProperties.NamedOutbox;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Several outboxes, one per {@code outbox4j.outboxes.<name>}, each on the {@code DataSource} bean it names: the
 * components of each ({@link NamedOutboxesRegistrar}: store, {@link TransactionalOutbox} with the qualifier
 * {@code <name>}, migration, relay and its lifecycle, wake-up listener, metrics tagged {@code outbox=<name>}), the
 * {@code outbox4j} health contributor with one component per outbox, the {@code outbox4j} endpoint over all of them,
 * and the outbox event writer for the outbox {@code outbox4j.events.outbox} names.
 *
 * <p>Active when at least one outbox is named; the single outbox's auto-configuration then backs off, and its
 * properties ({@code outbox4j.tables.*}, {@code outbox4j.relay.*}, ...) are refused with a message naming them.
 */
@AutoConfiguration(
    before = {Outbox4jAutoConfiguration.class, Outbox4jActuatorAutoConfiguration.class,
        Outbox4jMetricsAutoConfiguration.class},
    after = {DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
        Outbox4jTransportAutoConfiguration.class},
    afterName = "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration")
@ConditionalOnProperty(prefix = "outbox4j", name = "enabled", matchIfMissing = true)
@Conditional(OutboxForms.Several.class)
@EnableConfigurationProperties(Outbox4jProperties.class)
@Import(NamedOutboxesRegistrar.class)
public class Outbox4jOutboxesAutoConfiguration {

  /** Creates the configuration; called by Spring. */
  public Outbox4jOutboxesAutoConfiguration() {}

  /**
   * @param outboxes the named outboxes
   * @param properties the bound properties, for {@code outbox4j.events.outbox}
   * @param serializer the payload serializer, when the application has one
   * @param routes registered routes for types without {@code @OutboxEvent}
   * @return the listener that writes outbox events in the publisher's transaction, to the outbox
   *     {@code outbox4j.events.outbox} names (or the only one); with several and none named, a marked event is
   *     refused, which rolls back the publisher's transaction
   * @throws IllegalStateException when {@code outbox4j.events.outbox} names no outbox
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "outbox4j.events", name = "enabled", matchIfMissing = true)
  OutboxEventWriter outboxEventWriter(NamedOutboxes outboxes, Outbox4jProperties properties,
      ObjectProvider<OutboxEventSerializer> serializer, ObjectProvider<OutboxEventRoute<?>> routes) {
    String chosen = properties.getEvents().getOutbox();
    if (chosen != null && !outboxes.names().contains(chosen)) {
      throw new IllegalStateException("outbox4j.events.outbox names no outbox: '" + chosen + "'; there are "
          + outboxes.names());
    }
    String target = chosen != null ? chosen
        : outboxes.names().size() == 1 ? outboxes.names().iterator().next() : null;
    Supplier<TransactionalOutbox> outbox = target != null ? () -> outboxes.transactionalOutbox(target) : () -> {
      throw new IllegalStateException("an outbox event was published, but with several outboxes " + outboxes.names()
          + " outbox4j.events.outbox must name the one events are written to; nothing was written");
    };
    return new OutboxEventWriter(outbox, serializer::getIfAvailable, routes.orderedStream().toList());
  }

  /** The health contributor: one component per outbox. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("outbox4j")
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "outbox4jHealthContributor")
    CompositeHealthContributor outbox4jHealthContributor(NamedOutboxes outboxes) {
      Map<String, HealthIndicator> indicators = new LinkedHashMap<>();
      for (String name : outboxes.names()) {
        NamedOutbox settings = outboxes.settings(name);
        indicators.put(name, new OutboxHealthIndicator(outboxes.store(name), Clock.systemUTC(),
            settings.getHealth().getMaxLag(), () -> outboxes.pausedDestinations(name),
            settings.getHealth().isFailWhenDestinationPaused()));
      }
      return CompositeHealthContributor.fromMap(indicators);
    }
  }

  /** The endpoint over every outbox, each with the database doctor over its own {@code DataSource}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class Quarantine {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    OutboxesEndpoint outbox4jEndpoint(NamedOutboxes outboxes) {
      Map<String, OutboxEndpoint> endpoints = new LinkedHashMap<>();
      for (String name : outboxes.names()) {
        NamedOutbox settings = outboxes.settings(name);
        Duration lease = settings.getRelay().getLease() == null ? RelayBuilder.DEFAULT_LEASE
            : settings.getRelay().getLease();
        DatabaseDoctor doctor = new DatabaseDoctor(outboxes.dataSource(name), outboxes.store(name).tableNames(),
            lease, Clock.systemUTC(), outboxes.store(name).preparedStatements());
        endpoints.put(name, new OutboxEndpoint(outboxes.store(name), Clock.systemUTC(),
            () -> outboxes.pausedDestinations(name), () -> Optional.of(doctor.examine())));
      }
      return new OutboxesEndpoint(endpoints);
    }
  }
}
