package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.Outbox;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.Outbox4jCustomizer;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.util.ClassUtils;

/**
 * Builds one outbox's components from its {@link OutboxSettings}, the same way for the single outbox
 * ({@code outbox4j.*}) and for each of several ({@code outbox4j.outboxes.<name>.*}): the store, the writer, the relay,
 * and whether to migrate. A value out of range fails with the core's message behind the property it came from.
 *
 * <p>Stateless; thread-safe.
 */
final class OutboxComponents {
  private static final List<String> MIGRATION_TOOLS = List.of("org.flywaydb.core.Flyway", "liquibase.Liquibase");

  private OutboxComponents() {}

  /**
   * @param property where the settings are, for messages: {@code outbox4j} or {@code outbox4j.outboxes.billing}
   * @return the store, customized
   */
  static JdbcOutboxStore store(DataSource dataSource, OutboxSettings settings, String property,
      List<Outbox4jCustomizer> customizers) {
    JdbcOutboxStore.Builder builder = JdbcOutboxStore.builder(dataSource)
        .withTableNames(settings.getTables().toTableNames())
        .withLimits(settings.getLimits().toMessageLimits(property + ".limits"))
        .withPreparedStatements(settings.getRelay().isPreparedStatements());
    if (settings.getClaimStrategy() != null) {
      builder.withClaimStrategy(settings.getClaimStrategy());
    }
    if (settings.getKeepDelivered() != null) {
      builder.withRetention(Retention.keepFor(settings.getKeepDelivered()));
    }
    customizers.forEach(customizer -> customizer.customizeStore(builder));
    return builder.build();
  }

  /** @return the writer over the store's tables, customized and then decorated */
  static Outbox<Connection> writer(JdbcOutboxStore store, OutboxSettings settings,
      List<Outbox4jCustomizer> customizers) {
    JdbcOutbox.Builder builder = store.outboxBuilder().withWakeUpNotify(settings.getWrite().isWakeUpNotify())
        .withPreparedStatements(settings.getWrite().isPreparedStatements());
    customizers.forEach(customizer -> customizer.customizeWriter(builder));
    Outbox<Connection> writer = builder.build();
    for (Outbox4jCustomizer customizer : customizers) {
      writer = customizer.decorateWriter(writer);
    }
    return writer;
  }

  /**
   * @param property where the settings are, for messages: {@code outbox4j} or {@code outbox4j.outboxes.billing}
   * @return the relay, not started, over the transport decorated by the customizers
   */
  static Relay relay(JdbcOutboxStore store, Transport transport, OutboxSettings settings, String property,
      List<RelayListener> listeners, List<Outbox4jCustomizer> customizers) {
    Transport decorated = transport;
    for (Outbox4jCustomizer customizer : customizers) {
      decorated = customizer.decorateTransport(decorated);
    }
    Outbox4jProperties.Relay relay = settings.getRelay();
    RelayBuilder builder = Relay.builder(store, decorated)
        .withBatchSize(relay.getBatchSize())
        .withMaxInFlight(relay.getMaxInFlight())
        .withPollInterval(relay.getMinPoll(), relay.getMaxPoll())
        .withShutdownGrace(relay.getShutdownGrace())
        .withBatchLinger(relay.getBatchLinger())
        .withPurgeInterval(relay.getPurgeInterval())
        .withWorkers(relay.getWorkers())
        .withRetryPolicy(settings.getRetry().toRetryPolicy(property + ".retry"));
    // Unset lease and timeout stay unset, so the builder fits them to the transport's maxAnswerTime.
    if (relay.getLease() != null) {
      builder.withLease(relay.getLease());
    }
    if (relay.getDeliveryTimeout() != null) {
      builder.withDeliveryTimeout(relay.getDeliveryTimeout());
    }
    listeners.forEach(builder::onEvent);
    settings.getCloudevents().forEach((destination, cloudEvents) ->
        builder.withCloudEvents(destination, cloudEvents.toMapping(destination, property + ".cloudevents")));
    customizers.forEach(customizer -> customizer.customizeRelay(builder));
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(property + ".relay: " + e.getMessage(), e);
    }
  }

  /** @return whether the start-up migration runs, as the settings' {@code migrate} says */
  static boolean migrates(OutboxSettings settings) {
    return switch (settings.getMigrate()) {
      case ALWAYS -> true;
      case NEVER -> false;
      case AUTO -> MIGRATION_TOOLS.stream()
          .noneMatch(tool -> ClassUtils.isPresent(tool, OutboxComponents.class.getClassLoader()));
    };
  }
}
