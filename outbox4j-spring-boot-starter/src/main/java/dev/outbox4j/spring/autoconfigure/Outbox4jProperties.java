package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.RelayBuilder;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.spring.WithoutTransaction;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The outbox4j.* properties. Every default is the core's own constant, so a property left out behaves exactly
 * like the plain library. Validated when the components are built: a value out of range fails start-up with the
 * core's message, which names the option. The single outbox's settings are those of {@link OutboxSettings}, at
 * {@code outbox4j.*}; several outboxes have them each at {@code outbox4j.outboxes.<name>.*} ({@link NamedOutbox}).
 *
 * <p>One file of nested groups (tables, write, limits, relay, retry, transport, inbox, ...) on purpose: Spring Boot's
 * configuration processor documents each property from the field comment of the class that binds it, and a user
 * reads the whole tree of {@code outbox4j.*} here in the order of the reference table in docs/spring-boot.md.
 *
 * <p>Mutable JavaBean, bound once at start-up by Spring Boot; not for use across threads.
 */
@ConfigurationProperties(prefix = "outbox4j")
public class Outbox4jProperties extends OutboxSettings {
  /** Whether the outbox4j auto-configuration is active at all. */
  private boolean enabled = true;

  private final Transport transport = new Transport();
  private final Inbox inbox = new Inbox();
  private final FlowLedger flowLedger = new FlowLedger();
  private final Tracing tracing = new Tracing();
  private final Events events = new Events();

  /**
   * Several outboxes, by name: each on the DataSource bean its datasource names, with its own tables, relay,
   * transport, retry and health settings (the same keys as the single outbox's, under outbox4j.outboxes.<name>.).
   * Empty (the default): the single outbox of the outbox4j.* properties. The two forms do not mix.
   */
  private final Map<String, NamedOutbox> outboxes = new LinkedHashMap<>();

  /** Schema-migration policy. */
  public enum Migrate {
    /** Migrate unless Flyway or Liquibase is on the class path. */
    AUTO,
    /** Always migrate (idempotent). */
    ALWAYS,
    /** Never migrate; the schema is managed elsewhere. */
    NEVER
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Transport getTransport() {
    return transport;
  }

  public Inbox getInbox() {
    return inbox;
  }

  public FlowLedger getFlowLedger() {
    return flowLedger;
  }

  public Tracing getTracing() {
    return tracing;
  }

  public Events getEvents() {
    return events;
  }

  public Map<String, NamedOutbox> getOutboxes() {
    return outboxes;
  }

  /**
   * One of several outboxes ({@code outbox4j.outboxes.<name>.*}): the single outbox's settings, plus the
   * {@code DataSource} bean it lives in and a transport that may be a bean of the application's.
   */
  public static class NamedOutbox extends OutboxSettings {
    /**
     * Name of the DataSource bean this outbox's tables live in, and whose transactions its writes join; unset: the
     * application's only (or primary) DataSource.
     */
    private @Nullable String datasource;

    private final NamedTransport transport = new NamedTransport();

    public @Nullable String getDatasource() {
      return datasource;
    }

    public void setDatasource(@Nullable String datasource) {
      this.datasource = datasource;
    }

    public NamedTransport getTransport() {
      return transport;
    }
  }

  /** The transport of one of several outboxes: built from properties, or a Transport bean of the application's. */
  public static class NamedTransport extends Transport {
    /** Name of the application's Transport bean this outbox's relay uses; instead of type. */
    private @Nullable String bean;

    public @Nullable String getBean() {
      return bean;
    }

    public void setBean(@Nullable String bean) {
      this.bean = bean;
    }
  }

  /** Names of the outbox4j tables. */
  public static class Tables {
    /** Prefix of every outbox4j table, sequence and trigger name; a plain identifier of at most 30 characters. */
    private String prefix = TableNames.DEFAULT_PREFIX;

    /** Schema (a database on MariaDB/MySQL) of the tables; unset for the connection's default. */
    private @Nullable String schema;

    public String getPrefix() {
      return prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public @Nullable String getSchema() {
      return schema;
    }

    public void setSchema(@Nullable String schema) {
      this.schema = schema;
    }

    /** @return the validated names */
    public TableNames toTableNames() {
      return new TableNames(schema, prefix);
    }
  }

  /** The write side. */
  public static class Write {
    /**
     * What a write with no Spring-managed transaction in progress does: refuse (the default) or
     * own-transaction.
     */
    private WithoutTransaction withoutTransaction = WithoutTransaction.REFUSE;

    /**
     * On PostgreSQL, also NOTIFY in the writer's transaction so relays in other processes wake at once (costs one
     * round trip per write). The relay of this application is woken after commit either way.
     */
    private boolean wakeUpNotify = false;

    /**
     * On PostgreSQL, let pgjdbc prepare the writer's insert as the connection's prepareThreshold decides instead of
     * sending it unnamed: saves a parse and a plan per write. Only without a transaction-mode pooler that drops
     * prepared statements (PgBouncer before 1.21).
     */
    private boolean preparedStatements = false;

    public WithoutTransaction getWithoutTransaction() {
      return withoutTransaction;
    }

    public void setWithoutTransaction(WithoutTransaction withoutTransaction) {
      this.withoutTransaction = withoutTransaction;
    }

    public boolean isWakeUpNotify() {
      return wakeUpNotify;
    }

    public void setWakeUpNotify(boolean wakeUpNotify) {
      this.wakeUpNotify = wakeUpNotify;
    }

    public boolean isPreparedStatements() {
      return preparedStatements;
    }

    public void setPreparedStatements(boolean preparedStatements) {
      this.preparedStatements = preparedStatements;
    }
  }

  /** Limits a message must respect before it is written. */
  public static class Limits {
    /** Largest payload, in bytes. */
    private int maxPayloadBytes = MessageLimits.DEFAULT_MAX_PAYLOAD_BYTES;

    /** Most headers on one message. */
    private int maxHeaders = MessageLimits.DEFAULT_MAX_HEADERS;

    /** Largest header value, in UTF-8 bytes. */
    private int maxHeaderValueBytes = MessageLimits.DEFAULT_MAX_HEADER_VALUE_BYTES;

    public int getMaxPayloadBytes() {
      return maxPayloadBytes;
    }

    public void setMaxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
    }

    public int getMaxHeaders() {
      return maxHeaders;
    }

    public void setMaxHeaders(int maxHeaders) {
      this.maxHeaders = maxHeaders;
    }

    public int getMaxHeaderValueBytes() {
      return maxHeaderValueBytes;
    }

    public void setMaxHeaderValueBytes(int maxHeaderValueBytes) {
      this.maxHeaderValueBytes = maxHeaderValueBytes;
    }

    /** @return the limits; throws naming the option when one is not positive */
    public MessageLimits toMessageLimits() {
      return toMessageLimits("outbox4j.limits");
    }

    /**
     * @param property where these limits are set, for the message ({@code outbox4j.outboxes.billing.limits})
     * @return the limits; throws naming the option when one is not positive
     */
    public MessageLimits toMessageLimits(String property) {
      try {
        return new MessageLimits(maxPayloadBytes, maxHeaders, maxHeaderValueBytes);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
      }
    }
  }

  /** The relay that drains the outbox in this application. */
  public static class Relay {
    /** Whether this application runs a relay (it needs a transport); off for write-only services. */
    private boolean enabled = true;

    /** Entries claimed per pass, 1 to 10,000. */
    private int batchSize = RelayBuilder.DEFAULT_BATCH_SIZE;

    /**
     * How long a claim holds; must exceed the delivery timeout and the transport's maximum answer time. Unset: 30 s,
     * or three times the delivery timeout when that is longer.
     */
    private @Nullable Duration lease;

    /**
     * Longest wait for one delivery's confirmation; below the lease, at least the transport's maximum answer time.
     * Unset: 10 s, or the transport's maximum answer time when that is longer (Kafka: 14 s).
     */
    private @Nullable Duration deliveryTimeout;

    /** Deliveries in flight at once, across keys. */
    private int maxInFlight = RelayBuilder.DEFAULT_MAX_IN_FLIGHT;

    /** Shortest idle poll. */
    private Duration minPoll = RelayBuilder.DEFAULT_MIN_POLL;

    /** Longest idle poll (the ceiling the idle poll backs off to). */
    private Duration maxPoll = RelayBuilder.DEFAULT_MAX_POLL;

    /** How long shutdown lets deliveries in flight finish. */
    private Duration shutdownGrace = RelayBuilder.DEFAULT_SHUTDOWN_GRACE;

    /** Pause after a pass that claimed a partial batch, 0 to 1 s. */
    private Duration batchLinger = RelayBuilder.DEFAULT_BATCH_LINGER;

    /** How often delivered entries past their retention are purged (only with keep-delivered). */
    private Duration purgeInterval = RelayBuilder.DEFAULT_PURGE_INTERVAL;

    /** Background worker threads, 1 to 64. */
    private int workers = 1;

    /**
     * On PostgreSQL, let pgjdbc prepare the store's statements (claims, completions) as the connection's
     * prepareThreshold decides instead of sending them unnamed: saves a parse and a plan per statement, about 3 ms of
     * the relay's p50 latency on a busy machine. Only without a transaction-mode pooler that drops prepared statements
     * (PgBouncer before 1.21).
     */
    private boolean preparedStatements = false;

    /** The PostgreSQL LISTEN/NOTIFY wake-up of this relay. */
    private final WakeUpListener wakeUpListener = new WakeUpListener();

    public boolean isPreparedStatements() {
      return preparedStatements;
    }

    public void setPreparedStatements(boolean preparedStatements) {
      this.preparedStatements = preparedStatements;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public WakeUpListener getWakeUpListener() {
      return wakeUpListener;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public @Nullable Duration getLease() {
      return lease;
    }

    public void setLease(@Nullable Duration lease) {
      this.lease = lease;
    }

    public @Nullable Duration getDeliveryTimeout() {
      return deliveryTimeout;
    }

    public void setDeliveryTimeout(@Nullable Duration deliveryTimeout) {
      this.deliveryTimeout = deliveryTimeout;
    }

    public int getMaxInFlight() {
      return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
      this.maxInFlight = maxInFlight;
    }

    public Duration getMinPoll() {
      return minPoll;
    }

    public void setMinPoll(Duration minPoll) {
      this.minPoll = minPoll;
    }

    public Duration getMaxPoll() {
      return maxPoll;
    }

    public void setMaxPoll(Duration maxPoll) {
      this.maxPoll = maxPoll;
    }

    public Duration getShutdownGrace() {
      return shutdownGrace;
    }

    public void setShutdownGrace(Duration shutdownGrace) {
      this.shutdownGrace = shutdownGrace;
    }

    public Duration getBatchLinger() {
      return batchLinger;
    }

    public void setBatchLinger(Duration batchLinger) {
      this.batchLinger = batchLinger;
    }

    public Duration getPurgeInterval() {
      return purgeInterval;
    }

    public void setPurgeInterval(Duration purgeInterval) {
      this.purgeInterval = purgeInterval;
    }

    public int getWorkers() {
      return workers;
    }

    public void setWorkers(int workers) {
      this.workers = workers;
    }
  }

  /** When to retry a failed delivery and when to quarantine it. */
  /** The PostgreSQL LISTEN/NOTIFY wake-up of the relay. */
  public static class WakeUpListener {
    /**
     * Whether the relay LISTENs for the outbox's NOTIFY when the database is PostgreSQL (one connection of the data
     * source held while the relay runs), waking at once on a commit in another process; ignored on other databases.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  public static class Retry {
    /** exponential (the default: base, multiplier, cap, full jitter) or linear (step + cap). */
    private Kind kind = Kind.EXPONENTIAL;

    /** First delay (exponential) or the step added per attempt (linear). */
    private Duration base = RetryPolicy.DEFAULT_BASE;

    /** Growth factor per attempt (exponential only). */
    private double multiplier = RetryPolicy.DEFAULT_MULTIPLIER;

    /** Longest delay between two attempts. */
    private Duration cap = RetryPolicy.DEFAULT_CAP;

    /** Failed attempts (of the message itself; an outage charges none) after which an entry is quarantined. */
    private int maxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;

    /** How long an entry may keep failing for reasons of its own, from its first failed attempt. */
    private Duration giveUpAfter = RetryPolicy.DEFAULT_GIVE_UP_AFTER;

    /** Retry schedule shapes. */
    public enum Kind {
      /** Exponential with full jitter. */
      EXPONENTIAL,
      /** A fixed step per attempt, up to the cap. */
      LINEAR
    }

    public Kind getKind() {
      return kind;
    }

    public void setKind(Kind kind) {
      this.kind = kind;
    }

    public Duration getBase() {
      return base;
    }

    public void setBase(Duration base) {
      this.base = base;
    }

    public double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(double multiplier) {
      this.multiplier = multiplier;
    }

    public Duration getCap() {
      return cap;
    }

    public void setCap(Duration cap) {
      this.cap = cap;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getGiveUpAfter() {
      return giveUpAfter;
    }

    public void setGiveUpAfter(Duration giveUpAfter) {
      this.giveUpAfter = giveUpAfter;
    }

    /** @return the policy; throws naming the option when a value is out of range */
    public RetryPolicy toRetryPolicy() {
      return toRetryPolicy("outbox4j.retry");
    }

    /**
     * @param property where this policy is set, for the message ({@code outbox4j.outboxes.billing.retry})
     * @return the policy; throws naming the option when a value is out of range
     */
    public RetryPolicy toRetryPolicy(String property) {
      RetryPolicy.Builder builder = kind == Kind.LINEAR ? RetryPolicy.linear() : RetryPolicy.exponential();
      builder.withBase(base).withCap(cap).withMaxAttempts(maxAttempts).withGiveUpAfter(giveUpAfter);
      if (kind == Kind.EXPONENTIAL) {
        builder.withMultiplier(multiplier);
      }
      try {
        return builder.build();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
      }
    }
  }

  /** The relay's transport, built from properties when its module is on the class path. */
  public static class Transport {
    /**
     * Which transport the relay uses: kafka, rabbitmq, nats or http. Unset: no
     * transport is built from properties (declare a Transport bean, or run the relay elsewhere).
     */
    private @Nullable String type;

    /**
     * Take the transport's connection settings from the client Spring Boot already configured: RabbitMQ, the Spring
     * AMQP ConnectionFactory's host, port, virtual host, user and password; Kafka, spring.kafka.bootstrap-servers (or
     * spring.kafka.producer.bootstrap-servers). Keys under the transport's own map still win. The transport opens its
     * own connection (its confirms need a client of their own).
     */
    private boolean reuseSpringClient = false;

    /** Kafka settings, as documented by KafkaTransport.fromProperties (for example bootstrap.servers). */
    private Map<String, String> kafka = new LinkedHashMap<>();

    /** RabbitMQ settings, as documented by RabbitMqTransport.fromProperties (for example host). */
    private Map<String, String> rabbitmq = new LinkedHashMap<>();

    /** NATS settings, as documented by NatsTransport.fromProperties (for example servers). */
    private Map<String, String> nats = new LinkedHashMap<>();

    /** HTTP settings, as documented by HttpTransport.fromProperties (for example endpoint.orders). */
    private Map<String, String> http = new LinkedHashMap<>();

    public @Nullable String getType() {
      return type;
    }

    public void setType(@Nullable String type) {
      this.type = type;
    }

    public boolean isReuseSpringClient() {
      return reuseSpringClient;
    }

    public void setReuseSpringClient(boolean reuseSpringClient) {
      this.reuseSpringClient = reuseSpringClient;
    }

    public Map<String, String> getKafka() {
      return kafka;
    }

    public void setKafka(Map<String, String> kafka) {
      this.kafka = kafka;
    }

    public Map<String, String> getRabbitmq() {
      return rabbitmq;
    }

    public void setRabbitmq(Map<String, String> rabbitmq) {
      this.rabbitmq = rabbitmq;
    }

    public Map<String, String> getNats() {
      return nats;
    }

    public void setNats(Map<String, String> nats) {
      this.nats = nats;
    }

    public Map<String, String> getHttp() {
      return http;
    }

    public void setHttp(Map<String, String> http) {
      this.http = http;
    }
  }

  /** The consumer-side inbox. */
  public static class Inbox {
    /** Whether to create a JdbcInbox bean on the application's DataSource. */
    private boolean enabled = false;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** The flow ledger (needs a FlowStateCodec bean for the application's state body). */
  public static class FlowLedger {
    /** Whether to create a JdbcFlowLedger bean on the application's DataSource. */
    private boolean enabled = false;

    /** Largest serialized flow state, in bytes. */
    private int maxStateBytes = dev.outbox4j.flow.FlowLedger.DEFAULT_MAX_STATE_BYTES;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getMaxStateBytes() {
      return maxStateBytes;
    }

    public void setMaxStateBytes(int maxStateBytes) {
      this.maxStateBytes = maxStateBytes;
    }
  }

  /** The Actuator health indicator outbox4j. */
  public static class Health {
    /**
     * Lag (age of the oldest waiting entry) above which the health is OUT_OF_SERVICE; unset (the default) never
     * reports OUT_OF_SERVICE for lag.
     */
    private @Nullable Duration maxLag;
    /**
     * Whether a destination the relay has paused (all of its deliveries failing) makes the health OUT_OF_SERVICE;
     * by default it stays UP and names the paused destinations in its details.
     */
    private boolean failWhenDestinationPaused = false;

    public @Nullable Duration getMaxLag() {
      return maxLag;
    }

    public void setMaxLag(@Nullable Duration maxLag) {
      this.maxLag = maxLag;
    }

    public boolean isFailWhenDestinationPaused() {
      return failWhenDestinationPaused;
    }

    public void setFailWhenDestinationPaused(boolean failWhenDestinationPaused) {
      this.failWhenDestinationPaused = failWhenDestinationPaused;
    }
  }

  /** OpenTelemetry trace propagation (when outbox4j-opentelemetry is on the class path). */
  public static class Tracing {
    /** Whether to store the writer's trace context and open PRODUCER spans at delivery. */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** How one destination's messages become CloudEvents (see {@link CloudEventsMapping}). */
  public static class CloudEvents {
    /** The event's source attribute, a URI-reference such as /orders-service; required. */
    private @Nullable String source;
    /** The event's type attribute, such as com.example.order.placed; required. */
    private @Nullable String type;
    /** Binary (attributes in broker headers, payload untouched) or structured (one JSON event). */
    private CloudEventsMapping.Mode mode = CloudEventsMapping.Mode.BINARY;

    public @Nullable String getSource() {
      return source;
    }

    public void setSource(@Nullable String source) {
      this.source = source;
    }

    public @Nullable String getType() {
      return type;
    }

    public void setType(@Nullable String type) {
      this.type = type;
    }

    public CloudEventsMapping.Mode getMode() {
      return mode;
    }

    public void setMode(CloudEventsMapping.Mode mode) {
      this.mode = mode;
    }

    /**
     * @param destination the destination these settings are for, for the message
     * @return the mapping
     * @throws IllegalArgumentException naming the property that is missing or out of range
     */
    public CloudEventsMapping toMapping(String destination) {
      return toMapping(destination, "outbox4j.cloudevents");
    }

    /**
     * @param destination the destination these settings are for, for the message
     * @param property the map these settings are in, for the message ({@code outbox4j.outboxes.billing.cloudevents})
     * @return the mapping
     * @throws IllegalArgumentException naming the property that is missing or out of range
     */
    public CloudEventsMapping toMapping(String destination, String property) {
      String prefix = property + "[" + destination + "]";
      if (source == null || type == null) {
        throw new IllegalArgumentException(prefix + "." + (source == null ? "source" : "type") + " is required");
      }
      try {
        return new CloudEventsMapping(source, type, mode);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(prefix + ": " + e.getMessage(), e);
      }
    }
  }

  /** Application events marked for the outbox. */
  public static class Events {
    /** Whether events of types marked with @OutboxEvent (or routed by an OutboxEventRoute bean) are written. */
    private boolean enabled = true;

    /**
     * With several outboxes (outbox4j.outboxes.*): the name of the one events are written to; unset, the only one
     * when there is one, and otherwise a marked event is refused (its transaction rolls back).
     */
    private @Nullable String outbox;

    public @Nullable String getOutbox() {
      return outbox;
    }

    public void setOutbox(@Nullable String outbox) {
      this.outbox = outbox;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
