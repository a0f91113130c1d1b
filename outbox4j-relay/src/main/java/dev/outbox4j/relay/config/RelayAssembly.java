package dev.outbox4j.relay.config;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.http.HttpTransport;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.jdbc.PostgresDialect;
import dev.outbox4j.kafka.KafkaTransport;
import dev.outbox4j.nats.NatsTransport;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.relay.runtime.RoutingTransport;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;


/**
 * The one place where a {@link RelayConfig} becomes the library's objects: the connection pool, the store, the retry
 * policy, the transports and the relay. When the library's builders change, this class (and the key table of
 * {@link ConfigReader}) is what follows.
 *
 * <p>Stateless and thread-safe.
 */
public final class RelayAssembly {
  /** The transport types a configuration may name. */
  public static final List<String> TRANSPORT_TYPES = List.of("http", "kafka", "rabbitmq", "nats");

  private static final Map<String, List<String>> TRANSPORT_KEYS = Map.of(
      "http", withTls("signing-secret", "signing-ed25519-key", "signature-scheme", "request-timeout",
          "connect-timeout", "http-version"),
      "rabbitmq", withTls("uri", "host", "port", "virtual-host", "username", "password", "connection-name",
          "connection-timeout", "requested-heartbeat", "confirm-timeout", "recovery-interval", "auth-mechanism"),
      "nats", withTls("servers", "username", "password", "token", "nkey-seed", "credentials", "connection-name",
          "connection-timeout", "reconnect-wait", "ack-timeout", "tls.insecure-trust-all"),
      "kafka", withTls("bootstrap.servers", "client.id", "topic.prefix", "request.timeout", "delivery.timeout",
          "max.block", "linger", "header.message-id", "header.content-type", "missing-topic.permanent",
          "sasl.mechanism", "sasl.username", "sasl.password"));

  private static List<String> withTls(String... keys) {
    List<String> all = new ArrayList<>(List.of(keys));
    all.addAll(List.of("tls.enabled", "tls.trust-store", "tls.trust-store-password", "tls.key-store",
        "tls.key-store-password", "tls.certificate", "tls.key", "tls.hostname-verification"));
    return List.copyOf(all);
  }

  private RelayAssembly() {}

  /**
   * @param type a transport type
   * @return the fixed keys of its properties form (families such as {@code endpoint.<alias>} and {@code kafka.<x>}
   *     not included); empty for an unknown type
   */
  public static List<String> transportKeys(String type) {
    return TRANSPORT_KEYS.getOrDefault(type, List.of());
  }

  /**
   * Opens the relay's connection pool; fails at once when the database cannot be reached.
   *
   * @param database the settings
   * @param poolName the pool's name, shown in the database's connection list where it has one
   * @return the pool; close it when done
   * @throws dev.outbox4j.OutboxException when the database cannot be reached, with the driver's reason
   */
  public static HikariDataSource dataSource(RelayConfig.Database database, String poolName) {
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(database.url());
    if (database.username() != null) {
      hikari.setUsername(database.username());
    }
    if (database.password() != null) {
      hikari.setPassword(database.password());
    }
    database.driverProperties().forEach(hikari::addDataSourceProperty);
    hikari.setMaximumPoolSize(database.poolSize());
    hikari.setMinimumIdle(1);
    hikari.setPoolName(poolName);
    hikari.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
    hikari.setValidationTimeout(Duration.ofSeconds(3).toMillis());
    try {
      return new HikariDataSource(hikari);
    } catch (RuntimeException e) {
      throw new dev.outbox4j.OutboxException("cannot connect to the database " + database.displayUrl() + ": "
          + rootMessage(e), null);
    }
  }

  /**
   * The pool of a relay that runs: a database it cannot reach yet (a relay started before its database, or during a
   * failover) is tried again, half a second at first and doubling to five seconds, for {@code database.startup-wait},
   * each failure logged once with its cause; only then does the start fail. A supervisor's restarts (Kubernetes backs
   * off to five minutes between them) would otherwise delay the relay long after the database is back.
   *
   * @param database the settings
   * @param poolName the pool's name (threads, metrics)
   * @return the pool, connected
   * @throws dev.outbox4j.OutboxException if the database cannot be reached within the wait
   * @throws IllegalStateException if interrupted while waiting
   */
  public static HikariDataSource dataSourceOnceReachable(RelayConfig.Database database, String poolName) {
    long deadline = System.nanoTime() + database.startupWait().toNanos();
    Duration pause = Duration.ofMillis(500);
    while (true) {
      try {
        return dataSource(database, poolName);
      } catch (dev.outbox4j.OutboxException e) {
        if (System.nanoTime() - deadline >= 0) {
          throw database.startupWait().isZero() ? e : new dev.outbox4j.OutboxException(e.getMessage()
              + " (waited database.startup-wait " + database.startupWait().toSeconds() + " s)", null);
        }
        System.getLogger(RelayAssembly.class.getName()).log(System.Logger.Level.WARNING, e.getMessage()
            + "; trying again in " + pause.toMillis() + " ms (database.startup-wait " + database.startupWait() + ")");
      }
      try {
        Thread.sleep(pause.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the database " + database.displayUrl(), e);
      }
      pause = pause.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : pause.multipliedBy(2);
    }
  }

  /**
   * @param dataSource the pool
   * @param database the settings (table names, retention, claim strategy, prepared statements)
   * @return the store; close it after the relay that uses it
   */
  public static JdbcOutboxStore store(DataSource dataSource, RelayConfig.Database database) {
    JdbcOutboxStore.Builder builder = JdbcOutboxStore.builder(dataSource)
        .withTablePrefix(database.tablePrefix())
        .withSchema(database.schema())
        .withRetention(database.keepDelivered() == null
            ? Retention.deleteOnDelivery() : Retention.keepFor(database.keepDelivered()))
        .withPreparedStatements(database.preparedStatements());
    if (database.claims() != null) {
      builder.withClaimStrategy(database.claims());
    }
    return builder.build();
  }

  /**
   * Refuses the PostgreSQL-only settings ({@code relay.listen-notify}, {@code database.notify-trigger},
   * {@code database.key-numbering}) on another database, naming the key.
   *
   * @throws ConfigException for the first such setting that is on
   */
  public static void checkPostgresOnly(RelayConfig config, JdbcOutboxStore store) {
    if (store.dialect() instanceof PostgresDialect) {
      return;
    }
    String key = config.relay().listenNotify() ? "relay.listen-notify"
        : config.database().notifyTrigger() ? "database.notify-trigger"
        : config.database().keyNumbering() != null ? "database.key-numbering" : null;
    if (key != null) {
      throw new ConfigException(key, "needs PostgreSQL; this database is " + store.dialect().name(), config.source());
    }
  }

  /**
   * Installs what {@code database.notify-trigger} and {@code database.key-numbering} ask for (idempotent); run after
   * the migrations and {@link #checkPostgresOnly}.
   *
   * @return one line per setting applied, saying what it did
   */
  public static List<String> installPostgresTriggers(RelayConfig config, JdbcOutboxStore store) {
    List<String> done = new ArrayList<>();
    String outbox = store.tableNames().qualified("outbox");
    if (config.database().notifyTrigger()) {
      store.installNotifyTrigger();
      done.add("installed the notify trigger on " + outbox + " (database.notify-trigger)");
    }
    KeyNumbering numbering = config.database().keyNumbering();
    if (numbering != null) {
      store.useKeyNumbering(numbering);
      done.add(outbox + " numbers keyed entries at " + numbering.configName() + " (database.key-numbering)");
    }
    return done;
  }

  /**
   * @param retry the settings
   * @return the policy
   * @throws ConfigException when the policy's builder refuses a value
   */
  public static RetryPolicy retryPolicy(RelayConfig.Retry retry) {
    RetryPolicy.Builder builder = retry.policy().equals("linear") ? RetryPolicy.linear() : RetryPolicy.exponential();
    builder.withBase(retry.base()).withCap(retry.cap()).withGiveUpAfter(retry.giveUpAfter());
    if (retry.maxAttempts() != null) {
      builder.withMaxAttempts(retry.maxAttempts());
    }
    if (retry.policy().equals("exponential")) {
      builder.withMultiplier(retry.multiplier());
    }
    retry.jitterSetting().ifPresent(builder::withJitter);
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("retry", "is inconsistent: " + e.getMessage(), "configuration");
    }
  }

  /**
   * Builds every configured transport and routes the destinations to them.
   *
   * @param config the configuration
   * @return the routing transport; close it when done
   * @throws ConfigException naming the transport whose properties its module refused
   */
  public static RoutingTransport transport(RelayConfig config) {
    Map<String, Transport> byName = transports(config);
    return routing(config, byName);
  }

  /**
   * Builds every configured transport.
   *
   * @param config the configuration
   * @return the transports by name; close each when done
   * @throws ConfigException naming the transport whose properties its module refused
   */
  public static Map<String, Transport> transports(RelayConfig config) {
    Map<String, Transport> byName = new HashMap<>();
    try {
      for (RelayConfig.TransportSettings settings : config.transports().values()) {
        byName.put(settings.name(), transport(settings));
      }
      return byName;
    } catch (RuntimeException e) {
      byName.values().forEach(Transport::close);
      throw e;
    }
  }

  /**
   * Builds the transports that some destinations route to.
   *
   * @param config the configuration
   * @param destinations destinations → transport names; only the transports they name are built
   * @return the transports by name; close each when done
   * @throws ConfigException naming the transport whose properties its module refused
   */
  public static Map<String, Transport> transports(RelayConfig config, Map<String, String> destinations) {
    Map<String, Transport> byName = new HashMap<>();
    try {
      for (String name : new java.util.TreeSet<>(destinations.values())) {
        RelayConfig.TransportSettings settings = config.transports().get(name);
        if (settings != null) {
          byName.put(name, transport(settings));
        }
      }
      return byName;
    } catch (RuntimeException e) {
      byName.values().forEach(Transport::close);
      throw e;
    }
  }

  /**
   * @param config the configuration of one outbox (its destinations)
   * @param byName the built transports
   * @return the transport that routes that outbox's destinations to them; closing it closes the transports it routes
   *     to
   */
  public static RoutingTransport routing(RelayConfig config, Map<String, Transport> byName) {
    Map<String, Transport> routes = new HashMap<>();
    config.destinations().forEach((destination, name) -> {
      if (!destination.equals(RelayConfig.ANY_DESTINATION)) {
        routes.put(destination, byName.get(name));
      }
    });
    String fallbackName = config.destinations().get(RelayConfig.ANY_DESTINATION);
    return new RoutingTransport(routes, fallbackName == null ? null : byName.get(fallbackName), byName);
  }

  private static Transport transport(RelayConfig.TransportSettings settings) {
    try {
      return switch (settings.type()) {
        case "http" -> HttpTransport.fromProperties(settings.properties());
        case "kafka" -> KafkaTransport.fromProperties(settings.properties());
        case "rabbitmq" -> RabbitMqTransport.fromProperties(settings.properties());
        case "nats" -> NatsTransport.fromProperties(settings.properties());
        default -> throw new IllegalArgumentException("unknown transport type '" + settings.type() + "'");
      };
    } catch (IllegalArgumentException e) {
      throw new ConfigException("transports." + settings.name(), "is refused by its " + settings.type()
          + " transport: " + e.getMessage(), settings.origin());
    }
  }

  /**
   * @param store the store
   * @param transport the transport
   * @param config the configuration (relay settings and retry policy)
   * @param listeners receive the relay's events
   * @return the relay, not started
   * @throws ConfigException when the relay's builder refuses a combination of values
   */
  public static Relay relay(JdbcOutboxStore store, Transport transport, RelayConfig config,
      List<RelayListener> listeners) {
    return relay(store, transport, config, listeners, RelayConfig.DEFAULT_OUTBOX);
  }

  /**
   * @param store the store
   * @param transport the transport
   * @param config the configuration (relay settings and retry policy)
   * @param listeners receive the relay's events
   * @param outbox the outbox's name: its worker threads are {@code outbox4j-relay-<outbox>}, except the
   *     {@value RelayConfig#DEFAULT_OUTBOX} outbox's, {@code outbox4j-relay}
   * @return the relay, not started
   * @throws ConfigException when the relay's builder refuses a combination of values
   */
  public static Relay relay(JdbcOutboxStore store, Transport transport, RelayConfig config,
      List<RelayListener> listeners, String outbox) {
    return relay(store, transport, config, listeners, outbox, Runnable::run);
  }

  /**
   * @param store the store
   * @param transport the transport
   * @param config the configuration (relay settings and retry policy)
   * @param listeners receive the relay's events
   * @param outbox the outbox's name, as for {@link #relay(JdbcOutboxStore, Transport, RelayConfig, List, String)}
   * @param dispatch where the relay dispatches its sends ({@link RelayBuilder#withExecutor})
   * @return the relay, not started
   * @throws ConfigException when the relay's builder refuses a combination of values
   */
  public static Relay relay(JdbcOutboxStore store, Transport transport, RelayConfig config,
      List<RelayListener> listeners, String outbox, java.util.concurrent.Executor dispatch) {
    RelayConfig.RelaySettings settings = config.relay();
    RelayBuilder builder = Relay.builder(store, transport)
        .withBatchSize(settings.batchSize())
        .withWorkers(settings.workers())
        .withMaxInFlight(settings.maxInFlight())
        .withPollInterval(settings.pollMin(), settings.pollMax())
        .withShutdownGrace(settings.shutdownGrace())
        .withRetryPolicy(retryPolicy(config.retry()))
        .withExecutor(dispatch);
    // Unset lease and timeout stay unset, so the builder fits them to the transports' longest maxAnswerTime.
    if (settings.lease() != null) {
      builder.withLease(settings.lease());
    }
    if (settings.deliveryTimeout() != null) {
      builder.withDeliveryTimeout(settings.deliveryTimeout());
    }
    if (!outbox.equals(RelayConfig.DEFAULT_OUTBOX)) {
      String threadName = "outbox4j-relay-" + outbox;
      builder.withThreadFactory(runnable -> {
        Thread thread = new Thread(runnable, threadName);
        thread.setDaemon(true);
        return thread;
      });
    }
    listeners.forEach(builder::onEvent);
    config.cloudEvents().forEach(builder::withCloudEvents);
    try {
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new ConfigException("relay", "settings are inconsistent: " + e.getMessage(), config.source());
    }
  }

  /**
   * @param error a failure
   * @return the innermost cause's message (drivers put the useful part there)
   */
  public static String rootMessage(Throwable error) {
    Throwable cause = error;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    return message == null ? cause.getClass().getSimpleName() : message;
  }

}
