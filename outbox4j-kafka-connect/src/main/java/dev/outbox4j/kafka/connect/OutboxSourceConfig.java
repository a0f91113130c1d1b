package dev.outbox4j.kafka.connect;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The connector's settings: one {@link ConfigDef} with a type, a default, a validator and documentation for every key,
 * and typed accessors over a validated map. Secrets (the database password) may come from Connect's config providers
 * ({@code ${file:/path:key}}, {@code ${env:NAME}}): the worker resolves them before the connector sees its settings.
 *
 * <p>Immutable and thread-safe.
 */
public final class OutboxSourceConfig extends AbstractConfig {

  /** JDBC URL of the database holding the outbox (PostgreSQL, MariaDB/MySQL or H2). */
  public static final String JDBC_URL = "outbox.jdbc.url";
  /** Database user. */
  public static final String JDBC_USER = "outbox.jdbc.user";
  /** Database password. */
  public static final String JDBC_PASSWORD = "outbox.jdbc.password";
  /** Table name prefix of the outbox tables. */
  public static final String TABLE_PREFIX = "outbox.table.prefix";
  /** Connections per task. */
  public static final String POOL_SIZE = "outbox.pool.size";
  /** Whether the PostgreSQL driver may prepare the store's statements on the server. */
  public static final String PREPARED_STATEMENTS = "outbox.prepared.statements";
  /** Explicit destination to topic mapping. */
  public static final String TOPIC_MAPPING = "topic.mapping";
  /** Topic of a destination not in the mapping. */
  public static final String TOPIC_PATTERN = "topic.pattern";
  /** Entries per claim (per poll, and so per transaction). */
  public static final String BATCH_SIZE = "batch.size";
  /** Entries of one ordering key per claim. */
  public static final String MAX_RUN = "max.run";
  /** How long a claim holds its entries. */
  public static final String LEASE_MS = "lease.ms";
  /** How long a poll that found nothing waits before the next claim. */
  public static final String POLL_INTERVAL_MS = "poll.interval.ms";
  /** The largest record the task hands to Connect. */
  public static final String MAX_RECORD_BYTES = "max.record.bytes";
  /** Header carrying the message id. */
  public static final String MESSAGE_ID_HEADER = "header.message.id";
  /** Header carrying the content type. */
  public static final String CONTENT_TYPE_HEADER = "header.content.type";
  /** Task slots whose committed offsets a task reads when a claimed entry is in doubt. */
  public static final String SETTLE_SLOTS = "settle.slots";

  /** The placeholder {@link #TOPIC_PATTERN} replaces with the destination. */
  public static final String DESTINATION_PLACEHOLDER = "${destination}";

  /** The producer's transaction timeout Connect uses unless the connector overrides it, in milliseconds. */
  static final long DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;
  /**
   * What a transaction may outlive its timeout by before it is certainly aborted: the coordinator's abort sweep
   * (default 10 s) and clock skew.
   */
  static final long ABORT_MARGIN_MS = 15_000;
  /** What a lease must exceed the transaction timeout by: the abort margin and at least 15 s to hand a batch over. */
  static final long LEASE_MARGIN_MS = ABORT_MARGIN_MS + 15_000;

  /** The settings, their types, defaults, validators and documentation. */
  public static final ConfigDef CONFIG_DEF = new ConfigDef()
      .define(JDBC_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyStringWithoutControlChars(),
          Importance.HIGH, "JDBC URL of the database that holds the outbox: jdbc:postgresql:..., jdbc:mariadb:...,"
              + " jdbc:mysql:... or jdbc:h2:... The plugin ships the PostgreSQL, MariaDB and H2 drivers.")
      .define(JDBC_USER, Type.STRING, "", Importance.HIGH, "Database user; empty for none.")
      .define(JDBC_PASSWORD, Type.PASSWORD, "", Importance.HIGH,
          "Database password; empty for none. Use a config provider (${file:...} or ${env:...}) rather than the"
              + " plain value.")
      .define(TABLE_PREFIX, Type.STRING, "outbox4j_", new ConfigDef.NonEmptyStringWithoutControlChars(),
          Importance.MEDIUM, "Prefix of the outbox tables, as the application's store uses it.")
      .define(POOL_SIZE, Type.INT, 2, Range.between(1, 64), Importance.LOW,
          "Database connections per task.")
      .define(PREPARED_STATEMENTS, Type.BOOLEAN, false, Importance.LOW,
          "PostgreSQL: let the driver prepare the store's claims and other statements on the server (its"
              + " prepareThreshold decides) instead of sending each one unnamed, saving a parse and a plan per"
              + " statement. Only on a direct connection, a session-mode pooler or PgBouncer 1.21+ with"
              + " max_prepared_statements: through an older transaction-mode pooler the claims fail.")
      .define(TOPIC_MAPPING, Type.LIST, "", new TopicMappingValidator(), Importance.HIGH,
          "Destination to topic pairs, destination=topic, comma separated. A destination not listed goes to"
              + " the topic that topic.pattern gives.")
      .define(TOPIC_PATTERN, Type.STRING, DESTINATION_PLACEHOLDER, new ConfigDef.NonEmptyStringWithoutControlChars(),
          Importance.HIGH, "Topic of a destination not in topic.mapping; " + DESTINATION_PLACEHOLDER
              + " is replaced by the destination. An entry whose topic is not a legal Kafka topic name is"
              + " quarantined.")
      .define(BATCH_SIZE, Type.INT, 500, Range.between(1, 10_000), Importance.MEDIUM,
          "Most entries one poll claims; each poll's records are one Kafka transaction when exactly once is on.")
      .define(MAX_RUN, Type.INT, 100, Range.between(1, 10_000), Importance.LOW,
          "Most entries of one ordering key in one poll (a key's head and the entries right behind it).")
      .define(LEASE_MS, Type.LONG, 300_000L, Range.atLeast(1_000L), Importance.MEDIUM,
          "How long a claim holds its entries (ms). Must exceed the producer's transaction.timeout.ms by at least"
              + " " + LEASE_MARGIN_MS + " ms, so a transaction still open when the lease ends is certain to be"
              + " aborted.")
      .define(POLL_INTERVAL_MS, Type.LONG, 200L, Range.between(1L, 60_000L), Importance.LOW,
          "How long a poll that found nothing to claim waits before returning (ms).")
      .define(MAX_RECORD_BYTES, Type.INT, 1_000_000, Range.atLeast(1_024), Importance.MEDIUM,
          "Largest record (key, payload, headers) the task hands to Connect; a larger entry is quarantined and"
              + " blocks only its key. Keep it at or below the producer's max.request.size and the topics'"
              + " max.message.bytes: a record the broker refuses would fail the task's transaction.")
      .define(MESSAGE_ID_HEADER, Type.STRING, "message-id", new ConfigDef.NonEmptyStringWithoutControlChars(),
          Importance.LOW, "Header carrying the message id.")
      .define(CONTENT_TYPE_HEADER, Type.STRING, "content-type", new ConfigDef.NonEmptyStringWithoutControlChars(),
          Importance.LOW, "Header carrying the message's content type.")
      .define(SETTLE_SLOTS, Type.INT, 32, Range.between(1, 1_024), Importance.LOW,
          "Task slots (task numbers 0 to settle.slots - 1) whose committed offsets a task reads before sending an"
              + " entry in doubt; at least the highest tasks.max the connector ever ran with.");

  /**
   * @param settings the connector's or task's settings, config providers already resolved
   * @throws ConfigException naming the key, when a setting is missing or invalid
   */
  public OutboxSourceConfig(Map<String, String> settings) {
    super(CONFIG_DEF, settings);
    long transactionTimeout = transactionTimeoutMs(settings);
    if (leaseMs() < transactionTimeout + LEASE_MARGIN_MS) {
      throw new ConfigException(LEASE_MS, leaseMs(), "must be at least the producer's transaction.timeout.ms ("
          + transactionTimeout + ") + " + LEASE_MARGIN_MS + " ms");
    }
  }

  static long transactionTimeoutMs(Map<String, String> settings) {
    String override = settings.get("producer.override.transaction.timeout.ms");
    if (override == null) {
      return DEFAULT_TRANSACTION_TIMEOUT_MS;
    }
    try {
      return Long.parseLong(override.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("producer.override.transaction.timeout.ms", override, "not a number");
    }
  }

  String jdbcUrl() {
    return getString(JDBC_URL);
  }

  String jdbcUser() {
    return getString(JDBC_USER);
  }

  String jdbcPassword() {
    Password password = getPassword(JDBC_PASSWORD);
    return password == null ? "" : password.value();
  }

  String tablePrefix() {
    return getString(TABLE_PREFIX);
  }

  int poolSize() {
    return getInt(POOL_SIZE);
  }

  boolean preparedStatements() {
    return getBoolean(PREPARED_STATEMENTS);
  }

  TopicMapping topicMapping() {
    return new TopicMapping(pairs(getList(TOPIC_MAPPING)), getString(TOPIC_PATTERN));
  }

  int batchSize() {
    return getInt(BATCH_SIZE);
  }

  int maxRun() {
    return getInt(MAX_RUN);
  }

  long leaseMs() {
    return getLong(LEASE_MS);
  }

  Duration lease() {
    return Duration.ofMillis(leaseMs());
  }

  Duration pollInterval() {
    return Duration.ofMillis(getLong(POLL_INTERVAL_MS));
  }

  int maxRecordBytes() {
    return getInt(MAX_RECORD_BYTES);
  }

  String messageIdHeader() {
    return getString(MESSAGE_ID_HEADER);
  }

  String contentTypeHeader() {
    return getString(CONTENT_TYPE_HEADER);
  }

  int settleSlots() {
    return getInt(SETTLE_SLOTS);
  }

  /** Parses destination=topic pairs; the validator has checked their shape. */
  static Map<String, String> pairs(List<String> entries) {
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String entry : entries) {
      int equals = entry.indexOf('=');
      pairs.put(entry.substring(0, equals).trim(), entry.substring(equals + 1).trim());
    }
    return pairs;
  }

  /** Checks each topic.mapping entry is destination=topic with a legal topic name, and no destination repeats. */
  static final class TopicMappingValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      @SuppressWarnings("unchecked")
      List<String> entries = (List<String>) value;
      Map<String, String> seen = new LinkedHashMap<>();
      for (String entry : entries) {
        int equals = entry.indexOf('=');
        if (equals <= 0 || equals == entry.length() - 1) {
          throw new ConfigException(name, entry, "each entry must be destination=topic");
        }
        String destination = entry.substring(0, equals).trim();
        String topic = entry.substring(equals + 1).trim();
        String problem = TopicMapping.topicNameProblem(topic);
        if (problem != null) {
          throw new ConfigException(name, entry, "topic " + problem);
        }
        if (seen.put(destination, topic) != null) {
          throw new ConfigException(name, entry, "destination " + destination + " is mapped twice");
        }
      }
    }

    @Override
    public String toString() {
      return "destination=topic pairs, comma separated";
    }
  }
}
