package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.micrometer.OutboxMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Micrometer meters through {@code outbox4j-micrometer} on the application's registry: {@link OutboxMetrics} is both a
 * {@code MeterBinder} (Spring Boot binds it to every registry) and a {@code RelayListener} (the relay bean registers
 * every listener bean). Active when {@code outbox4j-micrometer} is on the class path and a {@link MeterRegistry} exists.
 */
@AutoConfiguration(
    after = Outbox4jAutoConfiguration.class,
    afterName = {"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({OutboxMetrics.class, MeterRegistry.class})
@ConditionalOnBean({MeterRegistry.class, JdbcOutboxStore.class})
@Conditional(OutboxForms.Single.class)
public class Outbox4jMetricsAutoConfiguration {

  /** Creates the configuration; called by Spring. */
  public Outbox4jMetricsAutoConfiguration() {}

  /**
   * @param store the outbox whose gauges are published
   * @return the meters
   */
  @Bean
  @ConditionalOnMissingBean
  public OutboxMetrics outbox4jMetrics(JdbcOutboxStore store) {
    return OutboxMetrics.builder(store).build();
  }
}
