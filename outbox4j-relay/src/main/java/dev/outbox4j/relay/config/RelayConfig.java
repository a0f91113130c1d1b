package dev.outbox4j.relay.config;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.relay.logging.LogFormat;
import dev.outbox4j.spi.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A validated relay configuration: what {@link ConfigReader} made of the file, the environment and the command line.
 * {@link RelayAssembly} turns it into the library's objects. Secrets are never shown by {@code toString()}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param source where it came from, for messages (the file, or {@code command line})
 * @param database where the outbox is
 * @param relay how the relay runs
 * @param retry when failed deliveries are tried again
 * @param server the dashboard, metrics and health endpoints
 * @param transports the transports by name
 * @param destinations which transport each destination goes to; the key {@value #ANY_DESTINATION} matches the rest
 * @param cloudEvents the destinations whose messages are sent as CloudEvents, with their mapping (none by default)
 * @param logFormat how {@code run} writes its log ({@code logging.format}; plain by default)
 * @param outboxes every outbox the relay drains, by name, in the file's order: the one outbox
 *     {@value #DEFAULT_OUTBOX} of a configuration without {@code outboxes:}, whose settings are the top-level ones;
 *     with {@code outboxes:}, the top-level {@code database}, {@code relay}, {@code retry}, {@code destinations} and
 *     {@code cloudEvents} are those of the first outbox (use {@link #outbox(String)} for another)
 */
public record RelayConfig(String source, Database database, RelaySettings relay, Retry retry, Server server,
    Map<String, TransportSettings> transports, Map<String, String> destinations,
    Map<String, CloudEventsMapping> cloudEvents, LogFormat logFormat, Map<String, Outbox> outboxes) {

  /** The destinations key that routes every destination not named otherwise. */
  public static final String ANY_DESTINATION = "*";

  /** The name of the one outbox of a configuration without {@code outboxes:}. */
  public static final String DEFAULT_OUTBOX = "default";

  /** What separates a tenant outbox's entry name from its schema: {@code tenants:tenant_7}. */
  public static final char TENANT_SEPARATOR = ':';

  /**
   * One outbox: a database (and schema, table prefix), the destinations it routes to the shared transports, its retry
   * policy and claim settings, and, for a tenants entry, how to find its schemas.
   *
   * @param name the outbox's name ({@code outboxes.<name>}; lower-case letters, digits and '-')
   * @param database where its tables are
   * @param relay how its relay claims and delivers
   * @param retry when its failed deliveries are tried again
   * @param destinations which transport each destination goes to
   * @param cloudEvents the destinations sent as CloudEvents
   * @param tenants how its tenant schemas are found, or {@code null} for one outbox in {@code database.schema}
   */
  public record Outbox(String name, Database database, RelaySettings relay, Retry retry,
      Map<String, String> destinations, Map<String, CloudEventsMapping> cloudEvents, @Nullable Tenants tenants) {
    /** Copies the maps. */
    public Outbox {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(database, "database");
      Objects.requireNonNull(relay, "relay");
      Objects.requireNonNull(retry, "retry");
      destinations = Map.copyOf(destinations);
      cloudEvents = Map.copyOf(cloudEvents);
    }

    /**
     * @param schema a tenant's schema
     * @return the outbox of that tenant: named {@code <name>:<schema>}, its tables in that schema, no tenants of its
     *     own
     */
    public Outbox tenant(String schema) {
      Database in = new Database(database.url(), database.username(), database.password(), schema,
          database.tablePrefix(), database.migrate(), database.poolSize(), database.keepDelivered(), database.claims(),
          database.driverProperties(), database.startupWait(), database.notifyTrigger(), database.keyNumbering(),
          database.preparedStatements());
      return new Outbox(name + TENANT_SEPARATOR + schema, in, relay, retry, destinations, cloudEvents, null);
    }
  }

  /**
   * How a tenants entry finds its schemas ({@code outboxes.<name>.tenants}): every schema whose name matches
   * {@code schemas}, or every name {@code query} answers; looked for again every {@code rediscover}.
   *
   * @param schemas a regular expression the whole schema name must match, or {@code null}
   * @param query an SQL query whose first column is the schema names, or {@code null}
   * @param rediscover how often the schemas are looked for again
   */
  public record Tenants(java.util.regex.@Nullable Pattern schemas, @Nullable String query, Duration rediscover) {
    /** {@code tenants.rediscover} unless set. */
    public static final Duration DEFAULT_REDISCOVER = Duration.ofSeconds(30);

    /** @throws IllegalArgumentException unless exactly one of schemas and query is given */
    public Tenants {
      if ((schemas == null) == (query == null)) {
        throw new IllegalArgumentException("exactly one of schemas and query must be given");
      }
      Objects.requireNonNull(rediscover, "rediscover");
    }
  }

  /**
   * One outbox, the top-level settings being its own.
   *
   * @param source where it came from
   * @param database where the outbox is
   * @param relay how the relay runs
   * @param retry when failed deliveries are tried again
   * @param server the dashboard, metrics and health endpoints
   * @param transports the transports by name
   * @param destinations which transport each destination goes to
   * @param cloudEvents the destinations whose messages are sent as CloudEvents, with their mapping
   * @param logFormat how {@code run} writes its log
   */
  public RelayConfig(String source, Database database, RelaySettings relay, Retry retry, Server server,
      Map<String, TransportSettings> transports, Map<String, String> destinations,
      Map<String, CloudEventsMapping> cloudEvents, LogFormat logFormat) {
    this(source, database, relay, retry, server, transports, destinations, cloudEvents, logFormat,
        Map.of(DEFAULT_OUTBOX, new Outbox(DEFAULT_OUTBOX, database, relay, retry, destinations, cloudEvents, null)));
  }

  /**
   * A configuration without CloudEvents.
   *
   * @param source where it came from
   * @param database where the outbox is
   * @param relay how the relay runs
   * @param retry when failed deliveries are tried again
   * @param server the dashboard, metrics and health endpoints
   * @param transports the transports by name
   * @param destinations which transport each destination goes to
   */
  public RelayConfig(String source, Database database, RelaySettings relay, Retry retry, Server server,
      Map<String, TransportSettings> transports, Map<String, String> destinations) {
    this(source, database, relay, retry, server, transports, destinations, Map.of());
  }

  /**
   * A configuration that logs in the plain format.
   *
   * @param source where it came from
   * @param database where the outbox is
   * @param relay how the relay runs
   * @param retry when failed deliveries are tried again
   * @param server the dashboard, metrics and health endpoints
   * @param transports the transports by name
   * @param destinations which transport each destination goes to
   * @param cloudEvents the destinations whose messages are sent as CloudEvents, with their mapping
   */
  public RelayConfig(String source, Database database, RelaySettings relay, Retry retry, Server server,
      Map<String, TransportSettings> transports, Map<String, String> destinations,
      Map<String, CloudEventsMapping> cloudEvents) {
    this(source, database, relay, retry, server, transports, destinations, cloudEvents, LogFormat.PLAIN);
  }

  /** Copies the maps; keeps the outboxes' order. */
  public RelayConfig {
    if (outboxes.isEmpty()) {
      throw new IllegalArgumentException("at least one outbox is required");
    }
    outboxes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(outboxes));
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(relay, "relay");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(logFormat, "logFormat");
    transports = Map.copyOf(transports);
    destinations = Map.copyOf(destinations);
    cloudEvents = Map.copyOf(cloudEvents);
  }

  /** @return whether the configuration names its outboxes ({@code outboxes:}) rather than giving one at top level */
  public boolean named() {
    return !outboxes.containsKey(DEFAULT_OUTBOX) || outboxes.size() > 1
        || outboxes.get(DEFAULT_OUTBOX).tenants() != null;
  }

  /**
   * The configuration of one outbox: its settings at top level, and it the only outbox. A tenant outbox
   * ({@code <entry>:<schema>}) needs no discovery: its schema is in its name.
   *
   * @param name an outbox's name, or a tenant outbox's {@code <entry>:<schema>}
   * @return the configuration of that outbox alone
   * @throws ConfigException when no outbox has that name
   */
  public RelayConfig outbox(String name) {
    Objects.requireNonNull(name, "name");
    int separator = name.indexOf(TENANT_SEPARATOR);
    Outbox outbox = outboxes.get(separator < 0 ? name : name.substring(0, separator));
    if (outbox != null && separator >= 0) {
      String schema = name.substring(separator + 1);
      if (outbox.tenants() == null || !schema.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
        outbox = null;
      } else {
        outbox = outbox.tenant(schema);
      }
    } else if (outbox != null && outbox.tenants() != null) {
      throw new ConfigException("outboxes." + name, "lists tenants: name one of them as " + name + TENANT_SEPARATOR
          + "SCHEMA", source);
    }
    if (outbox == null) {
      throw new ConfigException("outboxes." + name, "names no outbox of this configuration (configured: "
          + String.join(", ", outboxes.keySet()) + "; a tenant is ENTRY" + TENANT_SEPARATOR + "SCHEMA)", source);
    }
    return of(outbox);
  }

  /**
   * @param outbox one of this configuration's outboxes (or a tenant of one)
   * @return this configuration with that outbox alone, its settings at top level
   */
  public RelayConfig of(Outbox outbox) {
    return new RelayConfig(source, outbox.database(), outbox.relay(), outbox.retry(), server, transports,
        outbox.destinations(), outbox.cloudEvents(), logFormat, Map.of(outbox.name(), outbox));
  }

  /** @return the name of this configuration's first outbox ({@value #DEFAULT_OUTBOX} without {@code outboxes:}) */
  public String firstOutboxName() {
    return outboxes.keySet().iterator().next();
  }

  /**
   * @param url the JDBC URL (may carry credentials: never shown)
   * @param username the user, or {@code null} for the URL's or the driver's
   * @param password the password, or {@code null}
   * @param schema the schema of the outbox tables, or {@code null} for the connection's default
   * @param tablePrefix the table prefix
   * @param migrate whether {@code run} applies the migrations at start
   * @param poolSize most connections the relay's pool opens
   * @param keepDelivered how long delivered entries are kept, or {@code null} to delete them on delivery
   * @param claims how the store holds the relay's claims, or {@code null} for the database's default
   * @param driverProperties properties passed to the JDBC driver
   * @param startupWait how long {@code run} waits, at start, for a database it cannot reach yet (zero: not at all)
   * @param notifyTrigger whether {@code run} and {@code migrate} install the PostgreSQL trigger that notifies the
   *     relay of every insert, whoever wrote it
   * @param keyNumbering when {@code run} and {@code migrate} have PostgreSQL number keyed entries, or {@code null} to
   *     leave the schema as it is
   * @param preparedStatements whether the driver may prepare the store's statements on the server (PostgreSQL; not
   *     through a transaction-mode pooler before PgBouncer 1.21)
   */
  public record Database(String url, @Nullable String username, @Nullable String password, @Nullable String schema,
      String tablePrefix, boolean migrate, int poolSize, @Nullable Duration keepDelivered, @Nullable ClaimStrategy claims,
      Map<String, String> driverProperties, Duration startupWait, boolean notifyTrigger,
      @Nullable KeyNumbering keyNumbering, boolean preparedStatements) {
    /** {@code database.startup-wait} unless set. */
    public static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(60);

    /** Copies the driver properties. */
    public Database {
      driverProperties = Map.copyOf(driverProperties);
      if (startupWait.isNegative()) {
        throw new IllegalArgumentException("startupWait must not be negative, was " + startupWait);
      }
    }

    /**
     * Without driver properties.
     *
     * @param url the JDBC URL
     * @param username the user, or {@code null}
     * @param password the password, or {@code null}
     * @param schema the schema, or {@code null}
     * @param tablePrefix the table prefix
     * @param migrate whether to create the tables
     * @param poolSize most connections of a pool
     * @param keepDelivered how long delivered entries are kept, or {@code null}
     * @param claims the claim strategy, or {@code null} for the database's default
     */
    public Database(String url, @Nullable String username, @Nullable String password, @Nullable String schema,
        String tablePrefix, boolean migrate, int poolSize, @Nullable Duration keepDelivered, @Nullable ClaimStrategy claims) {
      this(url, username, password, schema, tablePrefix, migrate, poolSize, keepDelivered, claims, Map.of(),
          DEFAULT_STARTUP_WAIT, false, null, false);
    }

    /**
     * @param size most connections of a pool
     * @return these settings with that pool size
     */
    public Database withPoolSize(int size) {
      return new Database(url, username, password, schema, tablePrefix, migrate, size, keepDelivered, claims,
          driverProperties, startupWait, notifyTrigger, keyNumbering, preparedStatements);
    }

    /** @return the URL without user information or parameters, safe to print */
    public String displayUrl() {
      return displayable(url);
    }

    /** Hides the URL's credentials and the password. */
    @Override
    public String toString() {
      return "Database{url=" + displayUrl() + ", username=" + username + ", password=" + (password == null ? "-" : "****")
          + ", schema=" + schema + ", tablePrefix=" + tablePrefix + ", claims=" + claims
          + ", preparedStatements=" + preparedStatements
          + ", driverProperties=" + new java.util.TreeSet<>(driverProperties.keySet()) + "}";
    }

    /**
     * @param jdbcUrl a JDBC URL
     * @return it without anything after {@code ?} or {@code ;} (parameters, where drivers take passwords) and without
     *     user information
     */
    public static String displayable(String jdbcUrl) {
      String shown = jdbcUrl;
      int cut = indexOfAny(shown, '?', ';');
      if (cut >= 0) {
        shown = shown.substring(0, cut);
      }
      int at = shown.indexOf('@');
      int scheme = shown.indexOf("//");
      if (at >= 0 && scheme >= 0 && at > scheme) {
        shown = shown.substring(0, scheme + 2) + shown.substring(at + 1);
      }
      return shown;
    }

    private static int indexOfAny(String text, char a, char b) {
      int first = text.indexOf(a);
      int second = text.indexOf(b);
      if (first < 0) {
        return second;
      }
      return second < 0 ? first : Math.min(first, second);
    }
  }

  /**
   * @param batchSize entries claimed per pass
   * @param workers background worker threads
   * @param lease how long a claim holds, or {@code null} for the relay's default fitted to the transports
   * @param deliveryTimeout longest wait for one delivery's outcome, or {@code null} for the relay's default fitted to
   *     the transports' longest {@code maxAnswerTime}
   * @param maxInFlight deliveries in flight at once
   * @param pollMin shortest idle poll
   * @param pollMax longest idle poll
   * @param shutdownGrace how long deliveries in flight may finish at shutdown
   * @param listenNotify whether to LISTEN for the writers' NOTIFY (PostgreSQL only)
   */
  public record RelaySettings(int batchSize, int workers, @Nullable Duration lease, @Nullable Duration deliveryTimeout,
      int maxInFlight,
      Duration pollMin, Duration pollMax, Duration shutdownGrace, boolean listenNotify) {}

  /**
   * @param policy {@code exponential} or {@code linear}
   * @param base first delay (exponential) or step (linear)
   * @param multiplier growth per attempt (exponential only)
   * @param cap longest single delay
   * @param maxAttempts failed attempts of a message itself before quarantine, or {@code null} for no limit
   * @param giveUpAfter how long a message may keep failing on its own before quarantine
   * @param jitter full jitter, or {@code null} for the policy's default
   */
  public record Retry(String policy, Duration base, double multiplier, Duration cap, @Nullable Integer maxAttempts,
      Duration giveUpAfter, @Nullable Boolean jitter) {
    /** @return the jitter setting, if configured */
    public Optional<Boolean> jitterSetting() {
      return Optional.ofNullable(jitter);
    }
  }

  /**
   * @param enabled whether the dashboard, metrics and health endpoints are served
   * @param bind the address to listen on
   * @param port the port; 0 picks a free one
   * @param adminToken the token admin actions need, or {@code null} to generate one at start
   * @param showPayloads whether the dashboard shows payloads
   * @param failReadinessWhenDegraded whether {@code /health/ready} answers 503 rather than 200 while a destination is
   *     paused (key {@code health.fail-readiness-when-degraded})
   * @param adminTokenName who acts with the admin token, as the audit log of operator actions names them (key
   *     {@code server.admin-token-name}, default {@value #DEFAULT_ADMIN_TOKEN_NAME})
   * @param tls the server's certificate and key, or {@code null} for plain HTTP
   * @param allowedHosts host names besides IP addresses, {@code localhost} and {@code bind} that requests may carry in
   *     their {@code Host} header (key {@code server.allowed-hosts}); others are answered 421
   * @param tlsCa a PEM file of the certificate authority that signed the server's certificate, or of that certificate
   *     itself (key {@code server.tls.ca}): what the commands that ask this relay over HTTPS ({@code status --relay})
   *     trust besides the JVM's own authorities; {@code null} for those only
   */
  public record Server(boolean enabled, String bind, int port, @Nullable String adminToken, boolean showPayloads,
      boolean failReadinessWhenDegraded, String adminTokenName, @Nullable TlsSettings tls, List<String> allowedHosts,
      @Nullable Path tlsCa) {
    /** The admin token's name when none is configured. */
    public static final String DEFAULT_ADMIN_TOKEN_NAME = "admin";

    /** @throws NullPointerException if bind or adminTokenName is {@code null} */
    public Server {
      Objects.requireNonNull(bind, "bind");
      Objects.requireNonNull(adminTokenName, "adminTokenName");
      allowedHosts = List.copyOf(allowedHosts);
    }

    /**
     * No certificate authority named for the commands that ask this relay.
     *
     * @param enabled whether the dashboard, metrics and health endpoints are served
     * @param bind the address to listen on
     * @param port the port; 0 picks a free one
     * @param adminToken the token admin actions need, or {@code null} to generate one at start
     * @param showPayloads whether the dashboard shows payloads
     * @param failReadinessWhenDegraded whether {@code /health/ready} answers 503 while a destination is paused
     * @param adminTokenName the admin token's name
     * @param tls the server's certificate and key, or {@code null} for plain HTTP
     * @param allowedHosts host names answered besides IP addresses, {@code localhost} and {@code bind}
     */
    public Server(boolean enabled, String bind, int port, @Nullable String adminToken, boolean showPayloads,
        boolean failReadinessWhenDegraded, String adminTokenName, @Nullable TlsSettings tls,
        List<String> allowedHosts) {
      this(enabled, bind, port, adminToken, showPayloads, failReadinessWhenDegraded, adminTokenName, tls, allowedHosts,
          null);
    }

    /**
     * No host names allowed besides IP addresses, {@code localhost} and {@code bind}.
     *
     * @param enabled whether the dashboard, metrics and health endpoints are served
     * @param bind the address to listen on
     * @param port the port; 0 picks a free one
     * @param adminToken the token admin actions need, or {@code null} to generate one at start
     * @param showPayloads whether the dashboard shows payloads
     * @param failReadinessWhenDegraded whether {@code /health/ready} answers 503 while a destination is paused
     * @param adminTokenName the admin token's name
     * @param tls the server's certificate and key, or {@code null} for plain HTTP
     */
    public Server(boolean enabled, String bind, int port, @Nullable String adminToken, boolean showPayloads,
        boolean failReadinessWhenDegraded, String adminTokenName, @Nullable TlsSettings tls) {
      this(enabled, bind, port, adminToken, showPayloads, failReadinessWhenDegraded, adminTokenName, tls, List.of());
    }

    /**
     * Plain HTTP.
     *
     * @param enabled whether the dashboard, metrics and health endpoints are served
     * @param bind the address to listen on
     * @param port the port; 0 picks a free one
     * @param adminToken the token admin actions need, or {@code null} to generate one at start
     * @param showPayloads whether the dashboard shows payloads
     * @param failReadinessWhenDegraded whether {@code /health/ready} answers 503 while a destination is paused
     * @param adminTokenName the admin token's name
     */
    public Server(boolean enabled, String bind, int port, @Nullable String adminToken, boolean showPayloads,
        boolean failReadinessWhenDegraded, String adminTokenName) {
      this(enabled, bind, port, adminToken, showPayloads, failReadinessWhenDegraded, adminTokenName, null);
    }

    /** @return {@code https} when the server presents a certificate, else {@code http} */
    public String scheme() {
      return tls == null ? "http" : "https";
    }

    /**
     * The admin token named {@value #DEFAULT_ADMIN_TOKEN_NAME}.
     *
     * @param enabled whether the dashboard, metrics and health endpoints are served
     * @param bind the address to listen on
     * @param port the port; 0 picks a free one
     * @param adminToken the token admin actions need, or {@code null} to generate one at start
     * @param showPayloads whether the dashboard shows payloads
     * @param failReadinessWhenDegraded whether {@code /health/ready} answers 503 while a destination is paused
     */
    public Server(boolean enabled, String bind, int port, @Nullable String adminToken, boolean showPayloads,
        boolean failReadinessWhenDegraded) {
      this(enabled, bind, port, adminToken, showPayloads, failReadinessWhenDegraded, DEFAULT_ADMIN_TOKEN_NAME);
    }

    /**
     * Readiness stays 200 while a destination is paused (the default).
     *
     * @param enabled whether the dashboard, metrics and health endpoints are served
     * @param bind the address to listen on
     * @param port the port; 0 picks a free one
     * @param adminToken the token admin actions need, or {@code null} to generate one at start
     * @param showPayloads whether the dashboard shows payloads
     */
    public Server(boolean enabled, String bind, int port, @Nullable String adminToken, boolean showPayloads) {
      this(enabled, bind, port, adminToken, showPayloads, false);
    }

    /** Hides the token. */
    @Override
    public String toString() {
      return "Server{enabled=" + enabled + ", bind=" + bind + ", port=" + port + ", adminToken="
          + (adminToken == null ? "generated" : "****") + ", showPayloads=" + showPayloads
          + ", failReadinessWhenDegraded=" + failReadinessWhenDegraded + ", adminTokenName=" + adminTokenName
          + ", tls=" + tls + ", allowedHosts=" + allowedHosts + ", tlsCa=" + tlsCa + "}";
    }
  }

  /**
   * @param name the transport's name in the configuration
   * @param type {@code http}, {@code kafka}, {@code rabbitmq} or {@code nats}
   * @param properties the transport's properties form, without the {@code transports.<name>.} prefix
   * @param origin where the transport was declared, for messages
   */
  public record TransportSettings(String name, String type, Map<String, String> properties, String origin) {
    /** Copies the properties. */
    public TransportSettings {
      properties = Map.copyOf(properties);
    }

    /** Never shows property values: they may be secrets. */
    @Override
    public String toString() {
      return "TransportSettings{" + name + ", type=" + type + ", keys=" + new java.util.TreeSet<>(properties.keySet())
          + "}";
    }
  }
}
