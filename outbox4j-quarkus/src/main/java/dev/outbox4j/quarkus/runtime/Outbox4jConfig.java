package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.quarkus.WithoutTransaction;
import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * outbox4j's configuration under {@code outbox4j.*} in {@code application.properties}. The names are the Spring Boot
 * starter's wherever they mean the same, and every default points at the core library's constant, so a property reads
 * alike in both. Read at run time: the same build runs against any datasource, transport or relay settings.
 */
@ConfigMapping(prefix = "outbox4j")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface Outbox4jConfig {

  /** Whether outbox4j is active at all; {@code false} starts no relay and runs no migration. */
  @WithDefault("true")
  boolean enabled();

  /** The Agroal datasource the outbox lives in, by name; the default datasource when unset. */
  Optional<String> datasource();

  /**
   * When outbox4j applies its own schema migrations at start-up: {@code auto} (unless Flyway or Liquibase is on the
   * class path, which then owns the schema with outbox4j's files copied in), {@code always} or {@code never}.
   */
  @WithDefault("auto")
  Migrate migrate();

  /** How long delivered entries are kept before the relay purges them; deleted on delivery when unset. */
  Optional<Duration> keepDelivered();

  /** How relays claim entries; the database's default when unset. */
  Optional<ClaimStrategy> claimStrategy();

  /** The outbox tables. */
  Tables tables();

  /** Writing. */
  Write write();

  /** Message limits the writer enforces. */
  Limits limits();

  /** The relay. */
  Relay relay();

  /** The relay's retry policy. */
  Retry retry();

  /** The relay's transport, built from properties. */
  Transport transport();

  /** The health checks. */
  Health health();

  /** CloudEvents per destination: {@code outbox4j.cloudevents.<destination>.source}, {@code .type}, {@code .mode}. */
  Map<String, CloudEvents> cloudevents();

  /** CDI events of {@code @OutboxEvent} types. */
  Events events();

  /** OpenTelemetry trace propagation. */
  Tracing tracing();

  /** The read-only listing of the entries waiting for an operator, {@code GET /q/outbox4j/quarantined}. */
  Endpoint endpoint();

  /** When outbox4j migrates its schema. */
  enum Migrate {
    /** Unless Flyway or Liquibase is present. */
    AUTO,
    /** At every start (idempotent). */
    ALWAYS,
    /** Never: the schema is managed elsewhere. */
    NEVER
  }

  /** The outbox tables. */
  interface Tables {
    /** The table name prefix; letters, digits and underscores. */
    @WithDefault(TableNames.DEFAULT_PREFIX)
    String prefix();

    /** The schema of the tables; the connection's default when unset. */
    Optional<String> schema();

    /** @return the table names */
    default TableNames toTableNames() {
      return new TableNames(schema().orElse(null), prefix());
    }
  }

  /** Writing. */
  interface Write {
    /** What a write does outside a JTA transaction: {@code refuse} (the default) or {@code own-transaction}. */
    @WithDefault("refuse")
    WithoutTransaction withoutTransaction();

    /** Whether each write also sends PostgreSQL's NOTIFY, waking relays in other processes at once. */
    @WithDefault("false")
    boolean wakeUpNotify();

    /**
     * On PostgreSQL, let pgjdbc prepare the writer's insert as the connection's prepareThreshold decides instead of
     * sending it unnamed (saves a parse per write); only without PgBouncer in transaction mode before 1.21.
     */
    @WithDefault("false")
    boolean preparedStatements();
  }

  /** Message limits. */
  interface Limits {
    /** Largest payload, in bytes. */
    @WithDefault("" + MessageLimits.DEFAULT_MAX_PAYLOAD_BYTES)
    int maxPayloadBytes();

    /** Most headers per message. */
    @WithDefault("" + MessageLimits.DEFAULT_MAX_HEADERS)
    int maxHeaders();

    /** Largest header value, in bytes. */
    @WithDefault("" + MessageLimits.DEFAULT_MAX_HEADER_VALUE_BYTES)
    int maxHeaderValueBytes();

    /** @return the limits; names the property group when a value is out of range */
    default MessageLimits toMessageLimits() {
      try {
        return new MessageLimits(maxPayloadBytes(), maxHeaders(), maxHeaderValueBytes());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("outbox4j.limits: " + e.getMessage(), e);
      }
    }
  }

  /** The relay. */
  interface Relay {
    /** Whether this application runs a relay (when it has a transport). */
    @WithDefault("true")
    boolean enabled();

    /** Entries claimed per pass. */
    @WithDefault("" + RelayBuilder.DEFAULT_BATCH_SIZE)
    int batchSize();

    /** The claim lease; fitted to the transport's answer time when unset. */
    Optional<Duration> lease();

    /** The delivery timeout; fitted to the transport's answer time when unset. */
    Optional<Duration> deliveryTimeout();

    /** Deliveries awaiting an answer at once. */
    @WithDefault("" + RelayBuilder.DEFAULT_MAX_IN_FLIGHT)
    int maxInFlight();

    /**
     * On PostgreSQL, let pgjdbc prepare the store's statements (claims, completions) as the connection's
     * prepareThreshold decides instead of sending them unnamed. Only without a transaction-mode pooler that drops
     * prepared statements (PgBouncer before 1.21).
     */
    @WithDefault("false")
    boolean preparedStatements();

    /** Shortest poll interval; the core default ({@code RelayBuilder}) when unset. */
    Optional<Duration> minPoll();

    /** Longest (idle) poll interval; the core default ({@code RelayBuilder}) when unset. */
    Optional<Duration> maxPoll();

    /**
     * How long shutdown waits for deliveries in flight (unconfirmed ones are handed back, never marked delivered); the
     * core default ({@code RelayBuilder}) when unset.
     */
    Optional<Duration> shutdownGrace();

    /** How long a pass waits for more entries to fill a batch; the core default ({@code RelayBuilder}) when unset. */
    Optional<Duration> batchLinger();

    /** How often delivered entries past their retention are purged; the core default ({@code RelayBuilder}) when unset. */
    Optional<Duration> purgeInterval();

    /** Relay worker threads. */
    @WithDefault("1")
    int workers();

    /** The PostgreSQL wake-up listener. */
    WakeUpListener wakeUpListener();
  }

  /** The PostgreSQL wake-up listener. */
  interface WakeUpListener {
    /** Whether to LISTEN for the outbox's NOTIFY (PostgreSQL only; one connection held while the relay runs). */
    @WithDefault("true")
    boolean enabled();
  }

  /** The relay's retry policy. */
  interface Retry {
    /** {@code exponential} or {@code linear}. */
    @WithDefault("exponential")
    Kind kind();

    /** The first delay. */
    Optional<Duration> base();

    /** The exponential multiplier. */
    Optional<Double> multiplier();

    /** The longest delay. */
    Optional<Duration> cap();

    /** Attempts before quarantine. */
    Optional<Integer> maxAttempts();

    /** Time since the first failure after which an entry is quarantined. */
    Optional<Duration> giveUpAfter();

    /** The shape of the delays. */
    enum Kind {
      /** Delays grow by the multiplier. */
      EXPONENTIAL,
      /** Delays grow by the base. */
      LINEAR
    }

    /** @return the policy; names the property group when a value is out of range */
    default RetryPolicy toRetryPolicy() {
      RetryPolicy.Builder builder = kind() == Kind.LINEAR ? RetryPolicy.linear() : RetryPolicy.exponential();
      builder.withBase(base().orElse(RetryPolicy.DEFAULT_BASE))
          .withCap(cap().orElse(RetryPolicy.DEFAULT_CAP))
          .withMaxAttempts(maxAttempts().orElse(RetryPolicy.DEFAULT_MAX_ATTEMPTS))
          .withGiveUpAfter(giveUpAfter().orElse(RetryPolicy.DEFAULT_GIVE_UP_AFTER));
      if (kind() == Kind.EXPONENTIAL) {
        builder.withMultiplier(multiplier().orElse(RetryPolicy.DEFAULT_MULTIPLIER));
      }
      try {
        return builder.build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("outbox4j.retry: " + e.getMessage(), e);
      }
    }
  }

  /** The relay's transport. */
  interface Transport {
    /** {@code rabbitmq}, {@code http}, {@code kafka} or {@code nats}; no relay when unset (unless a Transport bean). */
    Optional<String> type();

    /** RabbitMQ settings, as {@code RabbitMqTransport.fromProperties} reads them (host, port, username, ...). */
    Map<String, String> rabbitmq();

    /** HTTP webhook settings, as {@code HttpTransport.fromProperties} reads them. */
    Map<String, String> http();

    /** Kafka producer settings, as {@code KafkaTransport.fromProperties} reads them. */
    Map<String, String> kafka();

    /** NATS JetStream settings, as {@code NatsTransport.fromProperties} reads them. */
    Map<String, String> nats();
  }

  /** The health checks. */
  interface Health {
    /** The lag above which readiness is DOWN; no limit when unset. */
    Optional<Duration> maxLag();

    /** Whether a paused destination makes readiness DOWN (by default it is reported, and readiness stays UP). */
    @WithDefault("false")
    boolean failWhenDestinationPaused();
  }

  /** CloudEvents attributes of one destination. */
  interface CloudEvents {
    /** The {@code source} attribute. */
    String source();

    /** The {@code type} attribute. */
    @WithName("type")
    String eventType();

    /** {@code binary} (the default) or {@code structured}. */
    @WithDefault("binary")
    CloudEventsMapping.Mode mode();
  }

  /** CDI events of {@code @OutboxEvent} types. */
  interface Events {
    /** Whether events of {@code @OutboxEvent} types are written to the outbox. */
    @WithDefault("true")
    boolean enabled();
  }

  /** OpenTelemetry trace propagation, when the application has {@code quarkus-opentelemetry}. */
  interface Tracing {
    /** Whether the writer stores the trace context with each message and the relay traces each delivery. */
    @WithDefault("true")
    boolean enabled();
  }

  /** The read-only listing of the entries waiting for an operator, when the application has an HTTP server. */
  interface Endpoint {
    /**
     * Whether {@code GET /q/outbox4j/quarantined} lists them (ids, destinations, ordering keys, reasons, last errors;
     * never payloads or headers); it answers 404 otherwise.
     */
    @WithDefault("false")
    boolean enabled();
  }
}
