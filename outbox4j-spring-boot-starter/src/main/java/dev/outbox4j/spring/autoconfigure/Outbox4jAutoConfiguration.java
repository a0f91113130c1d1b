package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.Outbox;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.flow.JdbcFlowLedger;
import dev.outbox4j.jdbc.inbox.JdbcInbox;
import dev.outbox4j.spi.Transport;
import dev.outbox4j.spring.Outbox4jCustomizer;
import dev.outbox4j.spring.OutboxEventRoute;
import dev.outbox4j.spring.OutboxEventSerializer;
import dev.outbox4j.spring.OutboxEventWriter;
import dev.outbox4j.spring.RelayLifecycle;
import dev.outbox4j.spring.WakeUpListenerLifecycle;
import dev.outbox4j.spring.TransactionalOutbox;
import dev.outbox4j.spring.WithoutTransaction;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wires outbox4j's JDBC components on the application's {@link DataSource}: the store, the writer joined to Spring's
 * transactions ({@link TransactionalOutbox}), outbox events, schema migration, the relay and its lifecycle, the inbox
 * and the flow ledger. Wiring only: every component is the core library's, configured from {@link Outbox4jProperties}
 * and {@link Outbox4jCustomizer} beans, and every bean backs off when the application declares its own.
 *
 * <p>Needs a single {@link DataSource} bean. Transports come from {@link Outbox4jTransportAutoConfiguration}, which
 * runs first; without a {@link Transport} bean there is no relay (the application only writes). Backs off when
 * several outboxes are named ({@code outbox4j.outboxes.*}, {@link Outbox4jOutboxesAutoConfiguration}).
 */
@AutoConfiguration(
    after = {DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
        Outbox4jTransportAutoConfiguration.class},
    afterName = "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration")
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "outbox4j", name = "enabled", matchIfMissing = true)
@Conditional(OutboxForms.Single.class)
@EnableConfigurationProperties(Outbox4jProperties.class)
public class Outbox4jAutoConfiguration {
  /** Creates the configuration; called by Spring. */
  public Outbox4jAutoConfiguration() {}

  /**
   * @param dataSource the application's data source
   * @param properties the bound properties
   * @param customizers applied after the properties
   * @return the store over the outbox tables; closed when the context closes, after the relay that depends on it
   *     has stopped (Spring destroys a bean's dependents first); closing releases nothing, since every claim lives in
   *     the database
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @DependsOnDatabaseInitialization
  public JdbcOutboxStore outbox4jStore(DataSource dataSource, Outbox4jProperties properties,
      ObjectProvider<Outbox4jCustomizer> customizers) {
    return OutboxComponents.store(dataSource, properties, "outbox4j", customizers.orderedStream().toList());
  }

  /**
   * @param store the store, whose tables, dialect and limits the writer shares
   * @param properties the bound properties
   * @param customizers applied after the properties; {@link Outbox4jCustomizer#decorateWriter} last
   * @return the writer {@link TransactionalOutbox} hands the transaction's connection to
   */
  @Bean
  @ConditionalOnMissingBean(name = "outbox4jWriter")
  public Outbox<Connection> outbox4jWriter(JdbcOutboxStore store, Outbox4jProperties properties,
      ObjectProvider<Outbox4jCustomizer> customizers) {
    return OutboxComponents.writer(store, properties, customizers.orderedStream().toList());
  }

  /**
   * @param dataSource the application's data source
   * @param writer the writer
   * @param properties the bound properties
   * @param transactionManager needed only for {@code outbox4j.write.without-transaction=own-transaction}
   * @param relay woken after each commit that wrote a message, when this application runs one
   * @return the Spring-facing writer
   */
  @Bean
  @ConditionalOnMissingBean
  public TransactionalOutbox transactionalOutbox(DataSource dataSource,
      @org.springframework.beans.factory.annotation.Qualifier("outbox4jWriter") Outbox<Connection> writer,
      Outbox4jProperties properties, ObjectProvider<PlatformTransactionManager> transactionManager,
      ObjectProvider<Relay> relay) {
    TransactionTemplate own = null;
    if (properties.getWrite().getWithoutTransaction() == WithoutTransaction.OWN_TRANSACTION) {
      PlatformTransactionManager manager = transactionManager.getIfUnique();
      if (manager == null) {
        throw new IllegalStateException("outbox4j.write.without-transaction=own-transaction needs a single "
            + "PlatformTransactionManager bean");
      }
      own = new TransactionTemplate(manager);
    }
    return new TransactionalOutbox(dataSource, writer, own, () -> relay.ifAvailable(Relay::wakeUp));
  }

  /**
   * @param outbox writes the events
   * @param serializer the payload serializer, when the application has one
   * @param routes registered routes for types without {@code @OutboxEvent}
   * @return the listener that writes outbox events in the publisher's transaction
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "outbox4j.events", name = "enabled", matchIfMissing = true)
  public OutboxEventWriter outboxEventWriter(TransactionalOutbox outbox,
      ObjectProvider<OutboxEventSerializer> serializer, ObjectProvider<OutboxEventRoute<?>> routes) {
    return new OutboxEventWriter(outbox, serializer::getIfAvailable, routes.orderedStream().toList());
  }

  /**
   * @param dataSource the application's data source
   * @param properties the bound properties
   * @param customizers applied after the properties
   * @return the inbox, when {@code outbox4j.inbox.enabled=true}
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "outbox4j.inbox", name = "enabled")
  @DependsOnDatabaseInitialization
  public JdbcInbox outbox4jInbox(DataSource dataSource, Outbox4jProperties properties,
      ObjectProvider<Outbox4jCustomizer> customizers) {
    JdbcInbox.Builder builder = JdbcInbox.builder(dataSource).withTableNames(properties.getTables().toTableNames());
    customizers.orderedStream().forEach(customizer -> customizer.customizeInbox(builder));
    return builder.build();
  }

  /**
   * @param dataSource the application's data source
   * @param codec the application's codec for its flow state body
   * @param properties the bound properties
   * @param <B> the state body type
   * @return the flow ledger, when {@code outbox4j.flow-ledger.enabled=true} and a codec bean exists
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(FlowStateCodec.class)
  @ConditionalOnProperty(prefix = "outbox4j.flow-ledger", name = "enabled")
  @DependsOnDatabaseInitialization
  public <B> JdbcFlowLedger<B> outbox4jFlowLedger(DataSource dataSource, FlowStateCodec<B> codec,
      Outbox4jProperties properties) {
    return JdbcFlowLedger.builder(dataSource, codec)
        .withTableNames(properties.getTables().toTableNames())
        .withMaxStateBytes(properties.getFlowLedger().getMaxStateBytes())
        .build();
  }

  /**
   * @param properties the bound properties
   * @param store the outbox store
   * @param inbox the inbox, if any
   * @param flowLedger the flow ledger, if any
   * @return the start-up migration, unless {@code outbox4j.migrate} (and the migration tools present) says not to
   */
  @Bean
  @ConditionalOnMissingBean
  public Outbox4jSchemaMigration outbox4jSchemaMigration(Outbox4jProperties properties, JdbcOutboxStore store,
      ObjectProvider<JdbcInbox> inbox, ObjectProvider<JdbcFlowLedger<?>> flowLedger) {
    return new Outbox4jSchemaMigration(OutboxComponents.migrates(properties), store, inbox.getIfAvailable(), flowLedger.getIfAvailable(),
        properties.getKeyNumbering());
  }

  /**
   * @param store the outbox store
   * @param transport the relay's transport
   * @param properties the bound properties
   * @param listeners every {@link RelayListener} bean (metrics among them)
   * @param customizers applied after the properties; {@link Outbox4jCustomizer#decorateTransport} first
   * @return the relay, not started ({@link RelayLifecycle} starts it)
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(Transport.class)
  @ConditionalOnProperty(prefix = "outbox4j.relay", name = "enabled", matchIfMissing = true)
  public Relay outbox4jRelay(JdbcOutboxStore store, Transport transport, Outbox4jProperties properties,
      ObjectProvider<RelayListener> listeners, ObjectProvider<Outbox4jCustomizer> customizers) {
    return OutboxComponents.relay(store, transport, properties, "outbox4j", listeners.orderedStream().toList(),
        customizers.orderedStream().toList());
  }

  /**
   * @param store the store, whose dialect decides whether to listen
   * @param dataSource where the listening connection comes from
   * @param relay the relay to wake
   * @return the lifecycle that LISTENs for the outbox's NOTIFY while the relay runs, on PostgreSQL only
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(Relay.class)
  @ConditionalOnClass(name = "org.postgresql.PGConnection")
  @ConditionalOnProperty(prefix = "outbox4j.relay.wake-up-listener", name = "enabled", matchIfMissing = true)
  public WakeUpListenerLifecycle outbox4jWakeUpListener(JdbcOutboxStore store, DataSource dataSource, Relay relay) {
    return new WakeUpListenerLifecycle(store, dataSource, relay);
  }

  /**
   * @param relay the relay
   * @param migration ensures the schema is migrated before the relay's first claim
   * @return the lifecycle that starts the relay with the context and closes it on shutdown
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(Relay.class)
  public RelayLifecycle outbox4jRelayLifecycle(Relay relay, ObjectProvider<Outbox4jSchemaMigration> migration) {
    migration.ifAvailable(ignored -> { });
    return new RelayLifecycle(relay);
  }
}
