package dev.outbox4j.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a {@link KafkaTransport}'s transactional mode ({@link KafkaTransport.Builder#withTransactions}): each
 * batch the relay hands over is one Kafka transaction, so consumers that read committed data see every message once.
 * See {@link TransactionalLane} for how a batch is sent and why it can never land after its lease.
 *
 * <p>The bound on a batch's outcome, counted from its claim: it lands, if at all, by
 * {@code claimedAt + startBound + timeout + abortSweep + clockSkew}, which is {@link #maxAnswerTime()}.
 *
 * <p>Immutable and thread-safe; {@link Builder} is not thread-safe.
 */
public final class KafkaTransactions {
  /** Default transactional id prefix. */
  public static final String DEFAULT_ID_PREFIX = "outbox4j";
  /** Default progress topic. */
  public static final String DEFAULT_PROGRESS_TOPIC = "outbox4j-progress";
  /** Default retention of the progress topic: 7 days. */
  public static final Duration DEFAULT_PROGRESS_RETENTION = Duration.ofDays(7);
  /** Default start bound B: 10 s. */
  public static final Duration DEFAULT_START_BOUND = Duration.ofSeconds(10);
  /** Default transaction timeout T ({@code transaction.timeout.ms}): 5 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  /** Default abort sweep, Kafka's default {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}: 10 s. */
  public static final Duration DEFAULT_ABORT_SWEEP = Duration.ofSeconds(10);
  /** Default allowance for clock skew between relays and brokers: 1 s. */
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(1);
  /** Default number of transactions at once (pooled producers): 2. */
  public static final int DEFAULT_PRODUCERS = 2;
  /**
   * The shortest progress retention allowed, as a multiple of {@link #maxAnswerTime()} (which the relay's lease is at
   * least): 100, so that an entry can stay in doubt for many leases before whether it landed can no longer be told.
   */
  public static final int MIN_PROGRESS_RETENTION_MULTIPLE = 100;

  /** Kafka's legal topic characters; a transactional id takes the same so it reads in tools. */
  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

  private final String idPrefix;
  private final String progressTopic;
  private final Duration progressRetention;
  private final Duration startBound;
  private final Duration timeout;
  private final Duration abortSweep;
  private final Duration clockSkew;
  private final int producers;

  private KafkaTransactions(Builder builder) {
    this.idPrefix = builder.idPrefix;
    this.progressTopic = builder.progressTopic;
    this.progressRetention = builder.progressRetention;
    this.startBound = builder.startBound;
    this.timeout = builder.timeout;
    this.abortSweep = builder.abortSweep;
    this.clockSkew = builder.clockSkew;
    this.producers = builder.producers;
  }

  /** @return a builder with the defaults; not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the defaults */
  public static KafkaTransactions ofDefaults() {
    return builder().build();
  }

  /**
   * Reads the {@code transactions.*} keys of {@link KafkaTransport#fromProperties} (given here without the prefix).
   *
   * @param properties {@code enabled}, {@code id-prefix}, {@code progress-topic}, {@code progress-retention},
   *     {@code start-bound}, {@code timeout}, {@code abort-sweep}, {@code clock-skew}, {@code producers}
   * @return the settings, or {@code null} when {@code enabled} is not {@code true} (the other keys are still checked)
   * @throws IllegalArgumentException naming the first unknown or malformed key, with its {@code transactions.} prefix
   */
  static @Nullable KafkaTransactions fromProperties(Map<String, String> properties) {
    Builder builder = builder();
    boolean enabled = false;
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<String, String> property : properties.entrySet()) {
      String key = "transactions." + property.getKey();
      String value = property.getValue();
      switch (property.getKey()) {
        case "enabled" -> enabled = PropertyValues.bool(key, value);
        case "id-prefix" -> builder.withIdPrefix(requireName(key, value.trim()));
        case "progress-topic" -> builder.withProgressTopic(requireName(key, value.trim()));
        case "progress-retention" -> builder.withProgressRetention(positive(key, value));
        case "start-bound" -> builder.withStartBound(positive(key, value));
        case "timeout" -> builder.withTimeout(positive(key, value));
        case "abort-sweep" -> builder.withAbortSweep(positive(key, value));
        case "clock-skew" -> builder.withClockSkew(notNegative(key, value));
        case "producers" -> builder.withProducers(count(key, value));
        default -> unknown.add(key);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown Kafka transport properties " + unknown);
    }
    try {
      KafkaTransactions transactions = builder.build();
      return enabled ? transactions : null;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(keyed(e.getMessage()), e);
    }
  }

  /** @return the builder's message, led by the properties key of the option it starts with */
  private static String keyed(String message) {
    Map<String, String> keys = Map.of("progressRetention", "transactions.progress-retention",
        "startBound", "transactions.start-bound", "timeout", "transactions.timeout",
        "abortSweep", "transactions.abort-sweep", "clockSkew", "transactions.clock-skew",
        "producers", "transactions.producers", "idPrefix", "transactions.id-prefix",
        "progressTopic", "transactions.progress-topic");
    for (Map.Entry<String, String> key : keys.entrySet()) {
      if (message.startsWith(key.getKey() + " ")) {
        return key.getValue() + ": " + message;
      }
    }
    return "transactions: " + message;
  }

  private static String requireName(String key, String value) {
    if (!NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(key + " must be 1 to 200 of a-z A-Z 0-9 . _ -, was '" + value + "'");
    }
    return value;
  }

  private static Duration positive(String key, String text) {
    Duration value = PropertyValues.duration(key, text);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(key + " must be positive, was '" + text + "'");
    }
    return value;
  }

  private static Duration notNegative(String key, String text) {
    Duration value = PropertyValues.duration(key, text);
    if (value.isNegative()) {
      throw new IllegalArgumentException(key + " must not be negative, was '" + text + "'");
    }
    return value;
  }

  private static int count(String key, String text) {
    try {
      int value = Integer.parseInt(text.trim());
      if (value >= 1 && value <= Builder.MAX_PRODUCERS) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(key + " must be a whole number from 1 to " + Builder.MAX_PRODUCERS
        + ", was '" + text + "'");
  }

  /** @return the transactional id prefix: ids are {@code <prefix>-<transport instance UUID>-<n>} */
  public String idPrefix() {
    return idPrefix;
  }

  /** @return the topic that records which messages each committed transaction carried */
  public String progressTopic() {
    return progressTopic;
  }

  /** @return the progress topic's {@code retention.ms} when this transport creates it */
  public Duration progressRetention() {
    return progressRetention;
  }

  /** @return B: the progress topic's {@code message.timestamp.before.max.ms}; a claim older than B cannot commit */
  public Duration startBound() {
    return startBound;
  }

  /** @return T: the producers' {@code transaction.timeout.ms} */
  public Duration timeout() {
    return timeout;
  }

  /** @return how often the brokers abort timed-out transactions (their cleanup interval), as assumed here */
  public Duration abortSweep() {
    return abortSweep;
  }

  /** @return the most that a relay's clock and a broker's clock may differ, as assumed here */
  public Duration clockSkew() {
    return clockSkew;
  }

  /** @return how many transactions run at once: one pooled producer and one thread each */
  public int producers() {
    return producers;
  }

  /** @return {@code startBound + timeout + abortSweep + clockSkew}: from a claim, the latest its batch can land */
  public Duration maxAnswerTime() {
    return maxAnswerTime(startBound, timeout, abortSweep, clockSkew);
  }

  private static Duration maxAnswerTime(Duration startBound, Duration timeout, Duration abortSweep,
      Duration clockSkew) {
    return startBound.plus(timeout).plus(abortSweep).plus(clockSkew);
  }

  /**
   * @return the shortest progress retention this transport accepts, configured or found on an existing topic:
   *     {@value #MIN_PROGRESS_RETENTION_MULTIPLE} x {@link #maxAnswerTime()} (43 min 20 s with the defaults)
   */
  public Duration minimumProgressRetention() {
    return maxAnswerTime().multipliedBy(MIN_PROGRESS_RETENTION_MULTIPLE);
  }

  @Override
  public String toString() {
    return "KafkaTransactions[idPrefix=" + idPrefix + ", progressTopic=" + progressTopic + ", progressRetention="
        + progressRetention + ", startBound=" + startBound + ", timeout=" + timeout + ", abortSweep=" + abortSweep
        + ", clockSkew=" + clockSkew + ", producers=" + producers + "]";
  }

  /** Configures {@link KafkaTransactions}. Not thread-safe; {@link #build()} returns an immutable value. */
  public static final class Builder {
    /** More producers than this would be a misreading of the option (it is not a batch size). */
    static final int MAX_PRODUCERS = 64;

    private String idPrefix = DEFAULT_ID_PREFIX;
    private String progressTopic = DEFAULT_PROGRESS_TOPIC;
    private Duration progressRetention = DEFAULT_PROGRESS_RETENTION;
    private Duration startBound = DEFAULT_START_BOUND;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Duration abortSweep = DEFAULT_ABORT_SWEEP;
    private Duration clockSkew = DEFAULT_CLOCK_SKEW;
    private int producers = DEFAULT_PRODUCERS;

    private Builder() {}

    /**
     * @param prefix the transactional id prefix; default {@value KafkaTransactions#DEFAULT_ID_PREFIX}. Grant the
     *     relay's principal {@code TransactionalId} rights on this prefix.
     * @return this builder
     */
    public Builder withIdPrefix(String prefix) {
      this.idPrefix = Objects.requireNonNull(prefix, "idPrefix");
      return this;
    }

    /**
     * @param topic the progress topic; default {@value KafkaTransactions#DEFAULT_PROGRESS_TOPIC}; created on first
     *     use when missing, verified when present
     * @return this builder
     */
    public Builder withProgressTopic(String topic) {
      this.progressTopic = Objects.requireNonNull(topic, "progressTopic");
      return this;
    }

    /**
     * @param retention the progress topic's {@code retention.ms} when this transport creates it; default 7 days; at
     *     least {@value KafkaTransactions#MIN_PROGRESS_RETENTION_MULTIPLE} x {@link KafkaTransactions#maxAnswerTime()}.
     *     An entry in doubt for longer is quarantined, as whether it landed can no longer be told: keep it above the
     *     longest time every relay may be stopped, or a destination paused.
     * @return this builder
     */
    public Builder withProgressRetention(Duration retention) {
      this.progressRetention = Objects.requireNonNull(retention, "progressRetention");
      return this;
    }

    /**
     * @param bound B, the progress topic's {@code message.timestamp.before.max.ms}: the broker refuses a batch's
     *     progress record once its claim is older than this, so the batch cannot commit; default 10 s
     * @return this builder
     */
    public Builder withStartBound(Duration bound) {
      this.startBound = Objects.requireNonNull(bound, "startBound");
      return this;
    }

    /**
     * @param timeout T, the producers' {@code transaction.timeout.ms}: the coordinator aborts a transaction this long
     *     after it started; at most the brokers' {@code transaction.max.timeout.ms}; default 5 s
     * @return this builder
     */
    public Builder withTimeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * @param sweep the brokers' {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}, which this
     *     transport cannot read: set it to what the cluster uses; default 10 s (Kafka's default)
     * @return this builder
     */
    public Builder withAbortSweep(Duration sweep) {
      this.abortSweep = Objects.requireNonNull(sweep, "abortSweep");
      return this;
    }

    /**
     * @param skew the most a relay's clock and a broker's clock may differ; default 1 s. Must be below the start bound.
     * @return this builder
     */
    public Builder withClockSkew(Duration skew) {
      this.clockSkew = Objects.requireNonNull(skew, "clockSkew");
      return this;
    }

    /**
     * @param count how many transactions run at once, each on its own producer and thread; 1 to 64; default 2
     * @return this builder
     */
    public Builder withProducers(int count) {
      this.producers = count;
      return this;
    }

    /**
     * @return the settings
     * @throws IllegalArgumentException naming the first option out of range
     */
    public KafkaTransactions build() {
      if (!NAME.matcher(idPrefix).matches()) {
        throw new IllegalArgumentException("idPrefix must be 1 to 200 of a-z A-Z 0-9 . _ -, was '" + idPrefix + "'");
      }
      if (!NAME.matcher(progressTopic).matches()) {
        throw new IllegalArgumentException("progressTopic must be a topic name (1 to 200 of a-z A-Z 0-9 . _ -), was '"
            + progressTopic + "'");
      }
      requirePositive("progressRetention", progressRetention);
      requirePositive("startBound", startBound);
      requirePositive("timeout", timeout);
      requirePositive("abortSweep", abortSweep);
      if (clockSkew.isNegative()) {
        throw new IllegalArgumentException("clockSkew must not be negative, was " + clockSkew);
      }
      if (clockSkew.compareTo(startBound) >= 0) {
        throw new IllegalArgumentException("clockSkew (" + clockSkew + ") must be below startBound (" + startBound
            + "): a batch may start only while its claim is younger than startBound - clockSkew");
      }
      if (timeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("timeout must be at most " + Integer.MAX_VALUE + " ms, was " + timeout);
      }
      if (producers < 1 || producers > MAX_PRODUCERS) {
        throw new IllegalArgumentException("producers must be from 1 to " + MAX_PRODUCERS + ", was " + producers);
      }
      Duration minimum = maxAnswerTime(startBound, timeout, abortSweep, clockSkew)
          .multipliedBy(MIN_PROGRESS_RETENTION_MULTIPLE);
      if (progressRetention.compareTo(minimum) < 0) {
        throw new IllegalArgumentException("progressRetention must be at least " + MIN_PROGRESS_RETENTION_MULTIPLE
            + " x maxAnswerTime (" + minimum + "), was " + progressRetention + ": an entry in doubt for longer than"
            + " the retention is quarantined, since whether it landed can no longer be told");
      }
      return new KafkaTransactions(this);
    }

    private static void requirePositive(String option, Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive, was " + value);
      }
    }
  }
}
