package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.PostgresDialect;
import dev.outbox4j.jdbc.PostgresWakeUpListener;
import dev.outbox4j.spi.Transport;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Runs outbox4j with the application: on {@link StartupEvent} it applies the schema migrations (when
 * {@code outbox4j.migrate} says so), builds the relay when there is a transport, starts the PostgreSQL wake-up listener
 * and the relay; on {@link ShutdownEvent} it closes the relay gracefully (no new claims; deliveries in flight finish
 * within {@code outbox4j.relay.shutdown-grace}; nothing unconfirmed is marked delivered), then the listener and the
 * transport it built.
 *
 * <p>Why at these events rather than at bean creation: the relay must run whether or not anything injects it, and it
 * must stop while the datasource is still open, which {@link ShutdownEvent} guarantees (the container destroys beans,
 * and Agroal closes its pools, after its observers return). Its observers run early at start-up
 * ({@code PLATFORM_BEFORE}), so the schema exists before the application's own start-up code writes.
 *
 * <p>Where the transport comes from: a {@link Transport} bean of the application's wins; otherwise
 * {@code outbox4j.transport.type} names one built from properties; with neither, the application only writes (another
 * process relays). With tracing ({@link OutboxTracing}) the transport is wrapped to open a PRODUCER span per delivery.
 * Several replicas each run a relay on the same tables: claims share the work.
 *
 * <p>Thread-safe.
 */
@Singleton
public class RelayRuntime {
  private static final System.Logger LOGGER = System.getLogger(RelayRuntime.class.getName());
  private static final List<String> MIGRATION_TOOLS = List.of("org.flywaydb.core.Flyway", "liquibase.Liquibase");

  private final Outbox4jConfig config;
  private final Instance<JdbcOutboxStore> store;
  private final Instance<AgroalDataSource> dataSources;
  private final Instance<Transport> applicationTransports;
  private final Instance<RelayListener> listeners;
  private final Instance<OutboxTracing> tracing;
  private volatile @Nullable Relay relay;
  private volatile boolean stopping;
  private @Nullable Transport ownTransport;
  private @Nullable PostgresWakeUpListener wakeUpListener;

  /**
   * @param config the configuration
   * @param store the outbox store
   * @param dataSources every Agroal datasource (the wake-up listener's connection comes from the outbox's)
   * @param applicationTransports the application's {@link Transport} bean, if it has one
   * @param listeners every {@link RelayListener} bean (the meters among them)
   * @param tracing trace propagation around the transport, a bean when the application has
   *     {@code quarkus-opentelemetry}
   */
  @Inject
  public RelayRuntime(Outbox4jConfig config, Instance<JdbcOutboxStore> store, @Any Instance<AgroalDataSource> dataSources,
      Instance<Transport> applicationTransports, @Any Instance<RelayListener> listeners,
      Instance<OutboxTracing> tracing) {
    this.config = config;
    this.store = store;
    this.dataSources = dataSources;
    this.applicationTransports = applicationTransports;
    this.listeners = listeners;
    this.tracing = tracing;
  }

  /**
   * Migrates, builds and starts; called by CDI at start-up.
   *
   * @param event the start-up event
   */
  synchronized void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
    if (!config.enabled()) {
      return;
    }
    JdbcOutboxStore outbox = store.get();
    if (migrates()) {
      outbox.migrate();
    }
    // Created now even without a relay, so the meters' gauges show the outbox of a writer-only application too.
    List<RelayListener> relayListeners = listeners.stream().toList();
    Optional<Transport> transport = transport();
    if (transport.isEmpty() || !config.relay().enabled()) {
      return;
    }
    Relay built = build(outbox, transport.get(), relayListeners);
    if (config.relay().wakeUpListener().enabled() && outbox.dialect() instanceof PostgresDialect) {
      try {
        wakeUpListener = PostgresWakeUpListener.start(Outbox4jProducers.dataSource(config, dataSources),
            outbox.tableNames(), built::wakeUp);
      } catch (RuntimeException e) {
        LOGGER.log(System.Logger.Level.WARNING, "outbox4j wake-up listener not started; the relay polls instead", e);
      }
    }
    built.start();
    relay = built;
  }

  /**
   * Closes the relay gracefully, then the wake-up listener and the transport built from properties; called by CDI at
   * shutdown.
   *
   * @param event the shutdown event
   */
  synchronized void onStop(@Observes ShutdownEvent event) {
    stopping = true;
    Relay running = relay;
    if (running != null) {
      running.close();
    }
    if (wakeUpListener != null) {
      wakeUpListener.close();
      wakeUpListener = null;
    }
    if (ownTransport != null) {
      try {
        ownTransport.close();
      } catch (Exception e) {
        LOGGER.log(System.Logger.Level.WARNING, "outbox4j transport did not close cleanly", e);
      }
      ownTransport = null;
    }
  }

  /** @return the relay, once started (it stays here, closed, after shutdown); empty when this application runs none */
  public Optional<Relay> relay() {
    return Optional.ofNullable(relay);
  }

  /** @return whether the application is shutting down (the relay then stops on purpose) */
  public boolean stopping() {
    return stopping;
  }

  /** Wakes the relay, if this application runs one, so newly committed messages leave before the next poll. */
  public void wakeUp() {
    Relay current = relay;
    if (current != null) {
      current.wakeUp();
    }
  }

  /** @return the channel the wake-up listener listens on, if it runs */
  public synchronized Optional<String> wakeUpChannel() {
    return Optional.ofNullable(wakeUpListener).map(PostgresWakeUpListener::channel);
  }

  private boolean migrates() {
    return switch (config.migrate()) {
      case ALWAYS -> true;
      case NEVER -> false;
      case AUTO -> MIGRATION_TOOLS.stream().noneMatch(RelayRuntime::present);
    };
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, Thread.currentThread().getContextClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  private Optional<Transport> transport() {
    Optional<OutboxTracing> traced = Outbox4jProducers.tracing(config, tracing);
    if (applicationTransports.isResolvable()) {
      Transport own = applicationTransports.get();
      return Optional.of(traced.map(t -> t.traced(own, systemOf(own))).orElse(own));
    }
    Optional<String> type = config.transport().type();
    if (type.isEmpty()) {
      return Optional.empty();
    }
    Transport built = TransportFromProperties.create(config.transport(), type.get());
    ownTransport = built;
    return Optional.of(traced.map(t -> t.traced(built, type.get())).orElse(built));
  }

  /** @return the {@code messaging.system} of an application's transport: its class name without "Transport" */
  private static String systemOf(Transport transport) {
    String name = transport.getClass().getSimpleName().replaceFirst("Transport$", "");
    return name.isEmpty() ? "outbox4j" : name.toLowerCase(java.util.Locale.ROOT);
  }

  private Relay build(JdbcOutboxStore outbox, Transport transport, List<RelayListener> relayListeners) {
    Outbox4jConfig.Relay settings = config.relay();
    RelayBuilder builder = Relay.builder(outbox, transport)
        .withBatchSize(settings.batchSize())
        .withMaxInFlight(settings.maxInFlight())
        .withPollInterval(settings.minPoll().orElse(RelayBuilder.DEFAULT_MIN_POLL),
            settings.maxPoll().orElse(RelayBuilder.DEFAULT_MAX_POLL))
        .withShutdownGrace(settings.shutdownGrace().orElse(RelayBuilder.DEFAULT_SHUTDOWN_GRACE))
        .withBatchLinger(settings.batchLinger().orElse(RelayBuilder.DEFAULT_BATCH_LINGER))
        .withPurgeInterval(settings.purgeInterval().orElse(RelayBuilder.DEFAULT_PURGE_INTERVAL))
        .withWorkers(settings.workers())
        .withRetryPolicy(config.retry().toRetryPolicy());
    // Unset lease and timeout stay unset, so the builder fits them to the transport's maxAnswerTime.
    settings.lease().ifPresent(builder::withLease);
    settings.deliveryTimeout().ifPresent(builder::withDeliveryTimeout);
    relayListeners.forEach(builder::onEvent);
    config.cloudevents().forEach((destination, cloudEvents) -> builder.withCloudEvents(destination,
        cloudEvents(destination, cloudEvents)));
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("outbox4j.relay: " + e.getMessage(), e);
    }
  }

  private static dev.outbox4j.CloudEventsMapping cloudEvents(String destination, Outbox4jConfig.CloudEvents settings) {
    try {
      return new dev.outbox4j.CloudEventsMapping(settings.source(), settings.eventType(), settings.mode());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("outbox4j.cloudevents." + destination + ": " + e.getMessage(), e);
    }
  }
}
