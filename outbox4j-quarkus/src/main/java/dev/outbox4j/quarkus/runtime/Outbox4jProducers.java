package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.Outbox;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.quarkus.TransactionalOutbox;
import dev.outbox4j.spi.Retention;
import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.DataSource;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.util.Optional;

/**
 * The outbox4j beans an application injects: the store over the outbox tables in the Agroal datasource, the writer,
 * {@link TransactionalOutbox} (writing in the caller's JTA transaction), and the {@link Relay} when this application
 * runs one. Wiring only: every component is the core library's, configured from {@link Outbox4jConfig}; the writer is
 * wrapped for trace propagation when an {@link OutboxTracing} bean exists.
 */
@Singleton
public class Outbox4jProducers {
  /** The name of the writer bean ({@code Outbox<Connection>}). */
  public static final String WRITER = "outbox4jWriter";

  /** Creates the producers; called by CDI. */
  public Outbox4jProducers() {}

  /**
   * @param config the configuration
   * @param dataSources every Agroal datasource; {@code outbox4j.datasource} names one, the default otherwise
   * @return the store; its dialect is detected from the datasource on first use
   */
  @Produces
  @Singleton
  public JdbcOutboxStore outbox4jStore(Outbox4jConfig config, @Any Instance<AgroalDataSource> dataSources) {
    JdbcOutboxStore.Builder builder = JdbcOutboxStore.builder(dataSource(config, dataSources))
        .withTableNames(config.tables().toTableNames())
        .withLimits(config.limits().toMessageLimits())
        .withPreparedStatements(config.relay().preparedStatements());
    config.claimStrategy().ifPresent(builder::withClaimStrategy);
    config.keepDelivered().map(Retention::keepFor).ifPresent(builder::withRetention);
    return builder.build();
  }

  /** @param store closed with the application; closing releases nothing, every claim lives in the database */
  public void closeStore(@Disposes JdbcOutboxStore store) {
    store.close();
  }

  /**
   * @param store the store, whose tables, dialect and limits the writer shares
   * @param config the configuration
   * @param tracing trace propagation, a bean when the application has {@code quarkus-opentelemetry}
   * @return the writer {@link TransactionalOutbox} hands the transaction's connection to; it stores the current trace
   *     context with each message when tracing is on
   */
  @Produces
  @Singleton
  @Named(WRITER)
  public Outbox<Connection> outbox4jWriter(JdbcOutboxStore store, Outbox4jConfig config,
      Instance<OutboxTracing> tracing) {
    JdbcOutbox writer = store.outboxBuilder().withWakeUpNotify(config.write().wakeUpNotify())
        .withPreparedStatements(config.write().preparedStatements()).build();
    return tracing(config, tracing).map(traced -> traced.traced(writer)).orElse(writer);
  }

  /** @return the trace propagation to apply: none when no bean is registered or outbox4j.tracing.enabled=false */
  static Optional<OutboxTracing> tracing(Outbox4jConfig config, Instance<OutboxTracing> tracing) {
    return config.tracing().enabled() && tracing.isResolvable() ? Optional.of(tracing.get()) : Optional.empty();
  }

  /**
   * @param config the configuration
   * @param dataSources every Agroal datasource
   * @param writer the writer
   * @param transactions Narayana's transaction manager
   * @param synchronizations Narayana's synchronization registry
   * @param relay woken after each commit that wrote a message, when this application runs a relay
   * @return the writer joined to the caller's JTA transaction
   */
  @Produces
  @Singleton
  public TransactionalOutbox transactionalOutbox(Outbox4jConfig config, @Any Instance<AgroalDataSource> dataSources,
      @Named(WRITER) Outbox<Connection> writer, TransactionManager transactions,
      TransactionSynchronizationRegistry synchronizations, RelayRuntime relay) {
    return new TransactionalOutbox(dataSource(config, dataSources), writer, transactions, synchronizations,
        config.write().withoutTransaction(), relay::wakeUp);
  }

  /**
   * @param relay the relay's runtime
   * @return the running relay
   * @throws IllegalStateException when this application runs no relay (no transport, or the relay disabled)
   */
  @Produces
  @Dependent
  public Relay outbox4jRelay(RelayRuntime relay) {
    return relay.relay().orElseThrow(() -> new IllegalStateException("this application runs no outbox4j relay: "
        + "set outbox4j.transport.type (or declare a Transport bean) and keep outbox4j.relay.enabled=true"));
  }

  static AgroalDataSource dataSource(Outbox4jConfig config, Instance<AgroalDataSource> dataSources) {
    Instance<AgroalDataSource> chosen = config.datasource()
        .map(name -> dataSources.select(new DataSource.DataSourceLiteral(name)))
        .orElseGet(() -> dataSources.select(Default.Literal.INSTANCE));
    if (!chosen.isResolvable()) {
      throw new IllegalStateException("outbox4j.datasource: no Agroal datasource "
          + config.datasource().map(name -> "named '" + name + "'").orElse("by default") + " is configured");
    }
    return chosen.get();
  }
}
