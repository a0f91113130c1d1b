package dev.outbox4j.relay.config;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.relay.logging.LogFormat;
import dev.outbox4j.spi.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Turns a YAML file, the environment and command-line options into a validated {@link RelayConfig}.
 *
 * <p>Precedence, lowest first: defaults, the file, command-line options, environment variables. Every key has an
 * environment name: {@code OUTBOX4J_} followed by the key in upper case with every character other than a letter or
 * digit replaced by {@code _} ({@code database.password} is {@code OUTBOX4J_DATABASE_PASSWORD},
 * {@code transports.events.bootstrap.servers} is {@code OUTBOX4J_TRANSPORTS_EVENTS_BOOTSTRAP_SERVERS}), so secrets
 * never need to be in the file. A transport must be declared in the file (at least its {@code type}) for its
 * environment names to exist. Every key can also be given as {@code <key>-file} (environment {@code <NAME>_FILE}): the
 * value is then read from that file at start ({@link SecretFiles}).
 *
 * <p>Several outboxes: {@code outboxes.<name>.<key>} gives one outbox's {@code database}, {@code relay}, {@code retry},
 * {@code destinations}, {@code cloudevents} and {@code tenants} keys; a key an outbox does not give falls back to the
 * same key at top level (so top-level {@code relay.*} and {@code retry.*} are every outbox's defaults), and a family
 * ({@code destinations}, {@code cloudevents}, {@code database.properties}) an outbox does not give at all is the
 * top-level one. Transports are declared once at top level; every outbox refers to them by name. Without
 * {@code outboxes}, the top-level keys are the one outbox {@value RelayConfig#DEFAULT_OUTBOX}. An outbox's
 * environment names follow the same rule ({@code outboxes.billing.database.password} is
 * {@code OUTBOX4J_OUTBOXES_BILLING_DATABASE_PASSWORD}) and exist once the file declares the outbox.
 *
 * <p>Strict: an unknown key in the file, or an {@code OUTBOX4J_} variable that names no key, is an error, because a
 * misspelt setting silently ignored is worse than a refusal to start. Every error names the key, the problem and the
 * origin; the values of keys that may hold secrets are never repeated.
 *
 * <p>One class for one job, reading: the key table and its defaults, the precedence merge and the typed reads of each
 * section share the reader's state (the scope of the outbox being read, the origin of every value for messages). What
 * is not reading lives elsewhere: secrets from files ({@link SecretFiles}), the result's shape ({@link RelayConfig}).
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigReader {
  /** The prefix of every environment name. */
  public static final String ENV_PREFIX = "OUTBOX4J_";

  private static final String CLOUDEVENTS = "cloudevents.";
  private static final String OUTBOXES = "outboxes.";
  private static final Pattern TRANSPORT_NAME = Pattern.compile("[a-z][a-z0-9-]{0,39}");
  private static final Pattern OUTBOX_NAME = TRANSPORT_NAME;
  /** The sections an outbox entry may give ({@code outboxes.<name>.<section>.…}). */
  private static final List<String> OUTBOX_SECTIONS = List.of("database", "relay", "retry", "destinations",
      "cloudevents", "tenants");
  /** The keys of an outbox's {@code tenants} section, and their defaults. */
  private static final Map<String, String> TENANT_KEYS = Map.of("tenants.schemas", "", "tenants.query", "",
      "tenants.rediscover", "30s");
  private static final Pattern TOKEN_NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

  /** Every fixed key and its default ({@code ""} = none); the documented reference (docs/relay-app.md). */
  public static final Map<String, String> KEYS = keys();

  private ConfigReader() {}

  private static Map<String, String> keys() {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("database.url", "");
    keys.put("database.username", "");
    keys.put("database.password", "");
    keys.put("database.schema", "");
    keys.put("database.table-prefix", "outbox4j_");
    keys.put("database.migrate", "false");
    keys.put("database.pool-size", "10");
    keys.put("database.keep-delivered", "");
    keys.put("database.claims", "default");
    keys.put("database.startup-wait", "60s");
    keys.put("database.notify-trigger", "false");
    keys.put("database.key-numbering", "");
    keys.put("database.prepared-statements", "false");
    keys.put("relay.batch-size", "200");
    keys.put("relay.workers", "1");
    keys.put("relay.lease", "");
    keys.put("relay.delivery-timeout", "");
    keys.put("relay.max-in-flight", "256");
    keys.put("relay.poll-min", "10ms");
    keys.put("relay.poll-max", "1s");
    keys.put("relay.shutdown-grace", "10s");
    keys.put("relay.listen-notify", "false");
    keys.put("retry.policy", "exponential");
    keys.put("retry.base", "1s");
    keys.put("retry.multiplier", "2");
    keys.put("retry.cap", "5m");
    keys.put("retry.max-attempts", "");
    keys.put("retry.give-up-after", "24h");
    keys.put("retry.jitter", "");
    keys.put("server.enabled", "true");
    keys.put("server.bind", "127.0.0.1");
    keys.put("server.port", "8080");
    keys.put("server.admin-token", "");
    keys.put("server.admin-token-name", RelayConfig.Server.DEFAULT_ADMIN_TOKEN_NAME);
    keys.put("server.show-payloads", "false");
    keys.put("server.allowed-hosts", "");
    keys.put("server.tls.certificate", "");
    keys.put("server.tls.key", "");
    keys.put("server.tls.key-store", "");
    keys.put("server.tls.key-store-password", "");
    keys.put("server.tls.ca", "");
    keys.put("health.fail-readiness-when-degraded", "false");
    keys.put("logging.format", "plain");
    return java.util.Collections.unmodifiableMap(keys);
  }

  /**
   * @param key a configuration key
   * @return its environment variable name
   */
  public static String environmentName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
  }

  /**
   * @param file the YAML file, or {@code null} when the command line gives everything
   * @param options values from command-line options, by key; their origin names the option
   * @param environment the process environment (only {@code OUTBOX4J_} names are read)
   * @return the validated configuration
   * @throws ConfigException naming the first key at fault
   */
  public static RelayConfig read(@Nullable Path file, List<ConfigValue> options, Map<String, String> environment) {
    Map<String, ConfigValue> values = file == null ? new LinkedHashMap<>() : ConfigSource.readYaml(file);
    for (ConfigValue option : options) {
      values.put(option.key(), option);
    }
    applyEnvironment(values, environment);
    SecretFiles.resolve(values);
    return new Typed(file == null ? "command line" : file.toString(), values).config();
  }

  /** A list value: YAML list items, or one text with items separated by commas. */
  private static List<String> list(String text) {
    return Arrays.stream(text.split(",")).map(String::trim).filter(item -> !item.isEmpty()).toList();
  }

  private static void applyEnvironment(Map<String, ConfigValue> values, Map<String, String> environment) {
    Map<String, String> byEnvironmentName = new TreeMap<>();
    KEYS.keySet().forEach(key -> byEnvironmentName.put(environmentName(key), key));
    values.keySet().forEach(key -> byEnvironmentName.put(environmentName(key), key));
    for (String outbox : outboxNames(values)) {
      for (String key : KEYS.keySet()) {
        if (key.startsWith("database.") || key.startsWith("relay.") || key.startsWith("retry.")) {
          byEnvironmentName.put(environmentName(OUTBOXES + outbox + "." + key), OUTBOXES + outbox + "." + key);
        }
      }
      for (String key : TENANT_KEYS.keySet()) {
        byEnvironmentName.put(environmentName(OUTBOXES + outbox + "." + key), OUTBOXES + outbox + "." + key);
      }
    }
    Map<String, String> kafkaPrefixes = new TreeMap<>();
    for (String name : transportNames(values)) {
      String base = "transports." + name + ".";
      byEnvironmentName.put(environmentName(base + "type"), base + "type");
      ConfigValue type = values.get(base + "type");
      String typeName = type == null ? "" : type.text();
      for (String property : RelayAssembly.transportKeys(typeName)) {
        byEnvironmentName.put(environmentName(base + property), base + property);
      }
      if (typeName.equals("http")) {
        values.keySet().stream().map(ConfigReader::unscoped).filter(key -> key.startsWith("destinations."))
            .forEach(key -> {
              String destination = key.substring("destinations.".length());
              for (String property : List.of("endpoint." + destination, "auth." + destination + ".bearer-token",
                  "auth." + destination + ".username", "auth." + destination + ".password")) {
                byEnvironmentName.put(environmentName(base + property), base + property);
              }
            });
      }
      if (typeName.equals("kafka")) {
        kafkaPrefixes.put(environmentName(base + "kafka") + "_", base + "kafka.");
      }
    }
    SecretFiles.addEnvironmentNames(byEnvironmentName);
    for (Map.Entry<String, String> variable : new TreeMap<>(environment).entrySet()) {
      String name = variable.getKey();
      if (!name.startsWith(ENV_PREFIX)) {
        continue;
      }
      String origin = "environment " + name;
      String key = byEnvironmentName.get(name);
      if (key == null) {
        key = kafkaPrefixes.entrySet().stream().filter(prefix -> name.startsWith(prefix.getKey()))
            .findFirst()
            .map(prefix -> prefix.getValue()
                + name.substring(prefix.getKey().length()).toLowerCase(Locale.ROOT).replace('_', '.'))
            .orElse(null);
      }
      if (key == null) {
        throw new ConfigException(name, "names no configuration key (see docs/relay-app.md; a transport's "
            + "variables exist only once the file declares the transport)", "environment");
      }
      values.put(key, new ConfigValue(key, variable.getValue().trim(), origin));
    }
  }

  /** @return the key without its {@code outboxes.<name>.} scope */
  private static String unscoped(String key) {
    if (!key.startsWith(OUTBOXES)) {
      return key;
    }
    int dot = key.indexOf('.', OUTBOXES.length());
    return dot < 0 ? key : key.substring(dot + 1);
  }

  /** @return the outboxes the file names, in its order, each name and section checked */
  private static Set<String> outboxNames(Map<String, ConfigValue> values) {
    Set<String> names = new java.util.LinkedHashSet<>();
    for (ConfigValue value : values.values()) {
      if (value.key().equals("outboxes") || value.key().startsWith(OUTBOXES)) {
        String rest = value.key().length() > OUTBOXES.length() ? value.key().substring(OUTBOXES.length()) : "";
        int dot = rest.indexOf('.');
        if (dot <= 0) {
          throw new ConfigException(value.key(), "must be a mapping of outbox names to their settings "
              + "(outboxes.<name>.database.url, ...)", value.origin());
        }
        String name = rest.substring(0, dot);
        if (!OUTBOX_NAME.matcher(name).matches()) {
          throw new ConfigException(value.key(), "has an invalid outbox name '" + name
              + "' (1 to 40 lower-case letters, digits and '-', starting with a letter)", value.origin());
        }
        String section = rest.substring(dot + 1);
        section = section.contains(".") ? section.substring(0, section.indexOf('.')) : section;
        if (!OUTBOX_SECTIONS.contains(section)) {
          throw new ConfigException(value.key(), "is not a key an outbox takes (an outbox gives "
              + OUTBOX_SECTIONS + "; transports are declared once at top level)", value.origin());
        }
        names.add(name);
      }
    }
    return names;
  }

  private static Set<String> transportNames(Map<String, ConfigValue> values) {
    Set<String> names = new TreeSet<>();
    for (ConfigValue value : values.values()) {
      if (value.key().startsWith("transports.")) {
        String rest = value.key().substring("transports.".length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
          throw new ConfigException(value.key(), "must be a mapping with at least a 'type'", value.origin());
        }
        String name = rest.substring(0, dot);
        if (!TRANSPORT_NAME.matcher(name).matches()) {
          throw new ConfigException(value.key(), "has an invalid transport name '" + name
              + "' (lower-case letters, digits and '-', starting with a letter)", value.origin());
        }
        names.add(name);
      }
    }
    return names;
  }

  /** Reads typed values and remembers which keys were read, so the rest can be refused as unknown. */
  private static final class Typed {
    private final String source;
    private final Map<String, ConfigValue> values;
    private final Set<String> read;
    /** {@code ""} at top level, {@code outboxes.<name>.} for one outbox's keys, which fall back to the top level. */
    private final String scope;

    Typed(String source, Map<String, ConfigValue> values) {
      this(source, values, new TreeSet<>(), "");
    }

    private Typed(String source, Map<String, ConfigValue> values, Set<String> read, String scope) {
      this.source = source;
      this.values = values;
      this.read = read;
      this.scope = scope;
    }

    RelayConfig config() {
      RelayConfig.Server server = server();
      Map<String, RelayConfig.TransportSettings> transports = transports();
      Set<String> names = outboxNames(values);
      Map<String, RelayConfig.Outbox> outboxes = new LinkedHashMap<>();
      if (names.isEmpty()) {
        outboxes.put(RelayConfig.DEFAULT_OUTBOX, outbox(RelayConfig.DEFAULT_OUTBOX, transports));
      } else {
        ConfigValue url = values.get("database.url");
        if (url != null) {
          throw new ConfigException("database.url", "cannot be given at top level together with 'outboxes': give each"
              + " outbox its own outboxes.<name>.database.url", url.origin());
        }
        Map<String, String> tables = new TreeMap<>();
        for (String name : names) {
          RelayConfig.Outbox outbox = new Typed(source, values, read, OUTBOXES + name + ".").outbox(name, transports);
          String table = outbox.database().url() + " " + outbox.database().schema() + " "
              + outbox.database().tablePrefix();
          String same = tables.putIfAbsent(table, name);
          if (same != null && outbox.tenants() == null) {
            throw new ConfigException(OUTBOXES + name + ".database", "names the same outbox table as outboxes." + same
                + " (url, schema and table-prefix); one relay drains it once", source);
          }
          outboxes.put(name, outbox);
        }
        // the top-level families are defaults that every outbox may have replaced: checked all the same
        destinations(transports);
        cloudEvents();
        family("database.properties.");
      }
      LogFormat logFormat = LogFormat.of(choice("logging.format", List.of("plain", "json")), "logging.format");
      Set<String> unknown = new TreeSet<>(values.keySet());
      unknown.removeAll(read);
      if (!unknown.isEmpty()) {
        String key = unknown.iterator().next();
        throw new ConfigException(key, "is not a known key" + suggestion(key), values.get(key).origin());
      }
      RelayConfig.Outbox first = outboxes.values().iterator().next();
      return new RelayConfig(source, first.database(), first.relay(), first.retry(), server, transports,
          first.destinations(), first.cloudEvents(), logFormat, outboxes);
    }

    /** One outbox's settings, read in this reader's scope. */
    private RelayConfig.Outbox outbox(String name, Map<String, RelayConfig.TransportSettings> transports) {
      RelayConfig.Database database = new RelayConfig.Database(
          required("database.url"),
          optional("database.username").orElse(null),
          optional("database.password").orElse(null),
          identifier("database.schema", 63).orElse(null),
          identifierOrEmpty("database.table-prefix", 30),
          bool("database.migrate"),
          integer("database.pool-size", 2, 200),
          optional("database.keep-delivered").map(text -> duration("database.keep-delivered")).orElse(null),
          claims(),
          family("database.properties."),
          durationOrZero("database.startup-wait"),
          bool("database.notify-trigger"),
          optional("database.key-numbering").map(text -> KeyNumbering.fromConfigName(
              choice("database.key-numbering", List.of("commit", "insert")))).orElse(null),
          bool("database.prepared-statements"));
      RelayConfig.RelaySettings relay = new RelayConfig.RelaySettings(
          integer("relay.batch-size", 1, 10_000),
          integer("relay.workers", 1, 64),
          optional("relay.lease").map(text -> duration("relay.lease")).orElse(null),
          optional("relay.delivery-timeout").map(text -> duration("relay.delivery-timeout")).orElse(null),
          integer("relay.max-in-flight", 1, 100_000),
          duration("relay.poll-min"),
          duration("relay.poll-max"),
          duration("relay.shutdown-grace"),
          bool("relay.listen-notify"));
      String policy = choice("retry.policy", List.of("exponential", "linear"));
      RelayConfig.Retry retry = new RelayConfig.Retry(policy,
          duration("retry.base"),
          decimal("retry.multiplier", 1.0),
          duration("retry.cap"),
          optional("retry.max-attempts").map(text -> integer("retry.max-attempts", 1, 1_000_000)).orElse(null),
          duration("retry.give-up-after"),
          optional("retry.jitter").map(text -> bool("retry.jitter")).orElse(null));
      RelayConfig.Tenants tenants = tenants();
      if (tenants != null && database.schema() != null) {
        throw new ConfigException(name("database.schema"), "cannot be given with tenants: each tenant is a schema",
            origin("database.schema"));
      }
      return new RelayConfig.Outbox(name, database, relay, retry, destinations(transports), cloudEvents(), tenants);
    }

    /** {@code tenants.schemas} or {@code tenants.query}, and {@code tenants.rediscover}; only inside an outbox. */
    private RelayConfig.@Nullable Tenants tenants() {
      if (scope.isEmpty()) {
        return null;
      }
      ConfigValue schemas = values.get(scope + "tenants.schemas");
      ConfigValue query = values.get(scope + "tenants.query");
      ConfigValue rediscover = values.get(scope + "tenants.rediscover");
      TENANT_KEYS.keySet().forEach(key -> read.add(scope + key));
      if (schemas == null && query == null) {
        if (rediscover != null) {
          throw new ConfigException(scope + "tenants.rediscover", "needs tenants.schemas or tenants.query",
              rediscover.origin());
        }
        return null;
      }
      if (schemas != null && query != null) {
        throw new ConfigException(scope + "tenants.query", "and tenants.schemas exclude each other (schemas is set at "
            + schemas.origin() + ")", query.origin());
      }
      Pattern pattern = null;
      if (schemas != null) {
        try {
          pattern = Pattern.compile(schemas.text());
        } catch (java.util.regex.PatternSyntaxException e) {
          throw new ConfigException(scope + "tenants.schemas", "must be a regular expression: "
              + e.getDescription(), schemas.origin());
        }
      } else if (query.text().isBlank()) {
        throw new ConfigException(scope + "tenants.query", "must be an SQL query whose first column is the schema"
            + " names", query.origin());
      }
      Duration every = rediscover == null ? RelayConfig.Tenants.DEFAULT_REDISCOVER : parseDuration(rediscover.text());
      if (every == null || every.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new ConfigException(scope + "tenants.rediscover", "must be a duration of at least 1s such as 30s or 5m",
            rediscover == null ? source : rediscover.origin());
      }
      return new RelayConfig.Tenants(pattern, query == null ? null : query.text(), every);
    }

    private RelayConfig.Server server() {
      RelayConfig.Server server = new RelayConfig.Server(
          bool("server.enabled"),
          text("server.bind"),
          integer("server.port", 0, 65_535),
          optional("server.admin-token").orElse(null),
          bool("server.show-payloads"),
          bool("health.fail-readiness-when-degraded"),
          text("server.admin-token-name"),
          serverTls(),
          optional("server.allowed-hosts").map(ConfigReader::list).orElse(List.of()),
          optional("server.tls.ca").map(Path::of).orElse(null));
      if (!TOKEN_NAME.matcher(server.adminTokenName()).matches()) {
        throw new ConfigException("server.admin-token-name", "must be 1 to 64 letters, digits or . _ @ -, was '"
            + server.adminTokenName() + "'", origin("server.admin-token-name"));
      }
      if (server.adminToken() != null && server.adminToken().length() < 16) {
        throw new ConfigException("server.admin-token", "must be at least 16 characters long",
            origin("server.admin-token"));
      }
      return server;
    }

    /**
     * @param prefix a family's prefix, such as {@code destinations.}
     * @return the prefix in this scope when the scope gives any key of the family, else the top-level prefix
     */
    private String familyPrefix(String prefix) {
      if (!scope.isEmpty() && values.keySet().stream().anyMatch(key -> key.startsWith(scope + prefix))) {
        return scope + prefix;
      }
      return prefix;
    }

    /** Every key under {@code prefix}, with the prefix removed (driver properties and the like). */
    private Map<String, String> family(String familyPrefix) {
      String prefix = familyPrefix(familyPrefix);
      Map<String, String> result = new TreeMap<>();
      for (ConfigValue value : values.values()) {
        if (value.key().startsWith(prefix) && value.key().length() > prefix.length()) {
          read.add(value.key());
          result.put(value.key().substring(prefix.length()), value.text());
        }
      }
      return result;
    }

    /** The relay's own HTTPS key pair; read and checked now, so a bad file stops the start naming its key. */
    private @Nullable TlsSettings serverTls() {
      Optional<String> certificate = optional("server.tls.certificate");
      Optional<String> key = optional("server.tls.key");
      Optional<String> keyStore = optional("server.tls.key-store");
      Optional<String> password = optional("server.tls.key-store-password");
      if (certificate.isPresent() != key.isPresent()) {
        throw new ConfigException(certificate.isPresent() ? "server.tls.key" : "server.tls.certificate",
            "is required with the other of server.tls.certificate and server.tls.key",
            origin(certificate.isPresent() ? "server.tls.certificate" : "server.tls.key"));
      }
      if (certificate.isEmpty() && keyStore.isEmpty()) {
        if (password.isPresent()) {
          throw new ConfigException("server.tls.key-store-password", "needs server.tls.key-store",
              origin("server.tls.key-store-password"));
        }
        return null;
      }
      String blamed = keyStore.isPresent() ? "server.tls.key-store" : "server.tls.certificate";
      try {
        TlsSettings.Builder builder = TlsSettings.builder();
        keyStore.ifPresent(file -> builder.withKeyStore(Path.of(file), password.orElse(null)));
        certificate.ifPresent(file -> builder.withClientCertificate(Path.of(file), Path.of(key.get())));
        TlsSettings tls = builder.build();
        tls.serverContext();
        return tls;
      } catch (TlsSettings.KeyFileException e) {
        throw new ConfigException("server.tls.key", "cannot be used: " + e.getMessage(), origin("server.tls.key"));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(blamed, "cannot be used: " + e.getMessage(), origin(blamed));
      }
    }

    private Map<String, RelayConfig.TransportSettings> transports() {
      Map<String, RelayConfig.TransportSettings> transports = new TreeMap<>();
      for (String name : transportNames(values)) {
        String base = "transports." + name + ".";
        String typeKey = base + "type";
        String type = values.containsKey(typeKey) ? choice(typeKey, RelayAssembly.TRANSPORT_TYPES) : "";
        if (type.isEmpty()) {
          String someKey = values.keySet().stream().filter(k -> k.startsWith(base)).findFirst().orElseThrow();
          throw new ConfigException(typeKey, "is required (one of " + RelayAssembly.TRANSPORT_TYPES + ")",
              values.get(someKey).origin());
        }
        Map<String, String> properties = new TreeMap<>();
        for (ConfigValue value : values.values()) {
          if (value.key().startsWith(base) && !value.key().equals(typeKey)) {
            read.add(value.key());
            properties.put(value.key().substring(base.length()), value.text());
          }
        }
        transports.put(name, new RelayConfig.TransportSettings(name, type, properties, origin(typeKey)));
      }
      return transports;
    }

    private Map<String, String> destinations(Map<String, RelayConfig.TransportSettings> transports) {
      String prefix = familyPrefix("destinations.");
      Map<String, String> destinations = new TreeMap<>();
      for (ConfigValue value : values.values()) {
        if (value.key().startsWith(prefix)) {
          read.add(value.key());
          String destination = value.key().substring(prefix.length());
          if (!transports.containsKey(value.text())) {
            throw new ConfigException(value.key(), "names transport '" + value.text()
                + "', which is not declared under 'transports' (declared: " + transports.keySet() + ")",
                value.origin());
          }
          destinations.put(destination, value.text());
        }
      }
      return destinations;
    }

    /** {@code cloudevents.<destination>.source|type|mode}; a destination name may itself contain dots. */
    private Map<String, CloudEventsMapping> cloudEvents() {
      String prefix = familyPrefix(CLOUDEVENTS);
      Map<String, Map<String, ConfigValue>> byDestination = new TreeMap<>();
      for (ConfigValue value : values.values()) {
        if (!value.key().startsWith(prefix)) {
          continue;
        }
        read.add(value.key());
        String rest = value.key().substring(prefix.length());
        int dot = rest.lastIndexOf('.');
        String attribute = dot < 0 ? "" : rest.substring(dot + 1);
        if (dot <= 0 || !List.of("source", "type", "mode").contains(attribute)) {
          throw new ConfigException(value.key(), "must be cloudevents.<destination>.source, .type or .mode",
              value.origin());
        }
        byDestination.computeIfAbsent(rest.substring(0, dot), d -> new TreeMap<>()).put(attribute, value);
      }
      Map<String, CloudEventsMapping> mappings = new TreeMap<>();
      byDestination.forEach((destination, attributes) -> {
        String base = prefix + destination + ".";
        ConfigValue any = attributes.values().iterator().next();
        for (String required : List.of("source", "type")) {
          if (!attributes.containsKey(required) || attributes.get(required).text().isBlank()) {
            throw new ConfigException(base + required, "is required when " + any.key() + " is set", any.origin());
          }
        }
        ConfigValue mode = attributes.get("mode");
        String modeText = mode == null ? "binary" : mode.text().toLowerCase(Locale.ROOT);
        if (!modeText.equals("binary") && !modeText.equals("structured")) {
          throw new ConfigException(base + "mode", "must be binary or structured, was '" + mode.text() + "'",
              mode.origin());
        }
        try {
          mappings.put(destination, new CloudEventsMapping(attributes.get("source").text(),
              attributes.get("type").text(), modeText.equals("binary")
                  ? CloudEventsMapping.Mode.BINARY : CloudEventsMapping.Mode.STRUCTURED));
        } catch (IllegalArgumentException e) {
          throw new ConfigException(base + "source", e.getMessage(), any.origin());
        }
      });
      return mappings;
    }

    private String suggestion(String key) {
      if (key.startsWith(OUTBOXES)) {
        key = unscoped(key);
      }
      String section = key.contains(".") ? key.substring(0, key.indexOf('.') + 1) : key;
      List<String> same = KEYS.keySet().stream().filter(k -> k.startsWith(section)).toList();
      if (same.isEmpty()) {
        return " (top-level sections: database, relay, retry, server, transports, destinations, cloudevents,"
            + " logging)";
      }
      return " (known in this section: " + same + ")";
    }

    private String origin(String key) {
      ConfigValue value = values.get(name(key));
      return value == null ? source + " (default)" : value.origin();
    }

    /** @return the key as given: in this scope when the scope gives it, else at top level (or in scope when unset) */
    private String name(String key) {
      if (scope.isEmpty() || values.containsKey(scope + key)) {
        return scope + key;
      }
      return values.containsKey(key) ? key : scope + key;
    }

    private Optional<String> optional(String key) {
      read.add(key);
      read.add(scope + key);
      ConfigValue value = values.get(name(key));
      if (value != null && !value.text().isEmpty()) {
        return Optional.of(value.text());
      }
      String fallback = KEYS.getOrDefault(key, "");
      return fallback.isEmpty() ? Optional.empty() : Optional.of(fallback);
    }

    private String text(String key) {
      return optional(key).orElseThrow(() -> missing(key));
    }

    private String required(String key) {
      return text(key);
    }

    private ConfigException missing(String key) {
      return new ConfigException(name(key), "is required (set it in the file or as " + environmentName(name(key))
          + ")", source);
    }

    private ConfigException invalid(String key, String expected) {
      String shown = isSecret(key) ? "" : ", was '" + optional(key).orElse("") + "'";
      return new ConfigException(name(key), "must be " + expected + shown, origin(key));
    }

    private int integer(String key, int min, int max) {
      String text = text(key);
      try {
        int value = Integer.parseInt(text);
        if (value < min || value > max) {
          throw invalid(key, "an integer from " + min + " to " + max);
        }
        return value;
      } catch (NumberFormatException e) {
        throw invalid(key, "an integer from " + min + " to " + max);
      }
    }

    private double decimal(String key, double min) {
      try {
        double value = Double.parseDouble(text(key));
        if (!(value >= min) || Double.isInfinite(value)) {
          throw invalid(key, "a number of at least " + min);
        }
        return value;
      } catch (NumberFormatException e) {
        throw invalid(key, "a number of at least " + min);
      }
    }

    private boolean bool(String key) {
      String text = text(key).toLowerCase(Locale.ROOT);
      if (!text.equals("true") && !text.equals("false")) {
        throw invalid(key, "true or false");
      }
      return Boolean.parseBoolean(text);
    }

    private String choice(String key, List<String> allowed) {
      String text = text(key).toLowerCase(Locale.ROOT);
      if (!allowed.contains(text)) {
        throw invalid(key, "one of " + allowed);
      }
      return text;
    }

    /** @return the claim strategy, or {@code null} for the database's default */
    private @Nullable ClaimStrategy claims() {
      if ("session-locks".equals(optional("database.claims").orElse(""))) {
        throw invalid("database.claims", "'default', 'leased-rows' or 'leased-batches': 'session-locks' was removed;"
            + " PostgreSQL's default claim (leased-batches) replaces it (docs/stores.md, \"Claim strategies\")");
      }
      String chosen = choice("database.claims", List.of("default", "leased-rows", "leased-batches"));
      return chosen.equals("default") ? null : ClaimStrategy.valueOf(chosen.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /** An enum constant written in lower case with '-' for '_' ({@code LEASED_ROWS} is {@code leased-rows}). */
    private <E extends Enum<E>> E constant(String key, Class<E> type) {
      List<String> allowed = Arrays.stream(type.getEnumConstants())
          .map(constant -> constant.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList();
      return Enum.valueOf(type, choice(key, allowed).toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    private Optional<String> identifier(String key, int maxLength) {
      Optional<String> text = optional(key);
      text.ifPresent(value -> {
        if (value.length() > maxLength || !value.matches("[A-Za-z_][A-Za-z0-9_]*")) {
          throw invalid(key, "an identifier (letters, digits, '_', not starting with a digit) of at most "
              + maxLength + " characters");
        }
      });
      return text;
    }

    private String identifierOrEmpty(String key, int maxLength) {
      ConfigValue given = values.get(name(key));
      if (given != null && given.text().isEmpty()) {
        read.add(key);
        read.add(scope + key);
        return "";
      }
      return identifier(key, maxLength).orElse("");
    }

    private Duration duration(String key) {
      String text = text(key);
      Duration value = parseDuration(text);
      if (value == null || value.isNegative() || value.isZero()) {
        throw invalid(key, "a positive duration such as 250ms, 10s, 5m, 1h, 7d or PT10S");
      }
      return value;
    }

    private Duration durationOrZero(String key) {
      String text = text(key);
      Duration value = text.trim().equals("0") ? Duration.ZERO : parseDuration(text);
      if (value == null || value.isNegative()) {
        throw invalid(key, "a duration such as 0, 250ms, 10s, 5m or PT10S");
      }
      return value;
    }

    private static boolean isSecret(String key) {
      String lower = key.toLowerCase(Locale.ROOT);
      return lower.contains("password") || lower.contains("secret") || lower.contains("token")
          || lower.contains("url") || lower.contains("uri") || lower.contains("jaas");
    }
  }

  /**
   * @param text {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 7d} or ISO-8601 ({@code PT10S})
   * @return the duration, or {@code null} when the text is none of these
   */
  static @Nullable Duration parseDuration(String text) {
    Objects.requireNonNull(text, "text");
    String lower = text.trim().toLowerCase(Locale.ROOT);
    if (lower.startsWith("p")) {
      try {
        return Duration.parse(lower);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    int split = 0;
    while (split < lower.length() && Character.isDigit(lower.charAt(split))) {
      split++;
    }
    if (split == 0 || split > 12) {
      return null;
    }
    long amount = Long.parseLong(lower.substring(0, split));
    return switch (lower.substring(split)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      case "d" -> Duration.ofDays(amount);
      default -> null;
    };
  }
}
