package dev.outbox4j.kafka;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxException;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.BatchOutcome;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Outgoing;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * Delivers outbox messages to Kafka with one idempotent producer ({@code enable.idempotence=true}, {@code acks=all}).
 *
 * <h2>Mapping</h2>
 * <ul>
 *   <li>topic = the {@linkplain Builder#withTopicMapping topic mapping} applied to the message; by default the
 *       message's destination unchanged;
 *   <li>record key = the ordering key as UTF-8 bytes, or no key (the producer's sticky partitioner) when the message has
 *       none; one key always lands on one partition, so Kafka keeps the key's order;
 *   <li>record value = the payload bytes, verbatim ({@link ByteArraySerializer});
 *   <li>record headers = every message header (value as UTF-8), then the content type under
 *       {@value #DEFAULT_CONTENT_TYPE_HEADER} and the message id under {@value #DEFAULT_MESSAGE_ID_HEADER} (names
 *       configurable). A message header with one of those two names is not copied: the transport's own values win, so
 *       a consumer that dedupes on the id header can trust it.
 * </ul>
 *
 * <h2>Why deliveries are asynchronous</h2>
 * {@link #deliver} hands the record to the producer and returns; the stage completes from the producer's send
 * callback once the partition leader and all in-sync replicas have the record ({@code acks=all}). The relay sends a
 * whole batch before it waits, so the producer packs many records into one request per partition (its
 * {@code linger.ms} and {@code batch.size}) and one batch costs about one round trip. {@link #deliver} only blocks when
 * the producer lacks metadata for a topic or its buffer is full, and never longer than {@code max.block.ms}.
 *
 * <p>When the brokers are unreachable, the producer's {@code send} blocks {@code max.block.ms} for metadata on every
 * call; a relay delivering a batch of 200 would then spend 200 × {@code max.block.ms} in one pass, far past its lease.
 * So when a send gives up on a topic's metadata, the transport remembers it for one {@code max.block.ms} and fails
 * further messages to that topic at once, with the same classification: a pass during an outage costs one
 * {@code max.block.ms}, and the relay's backoff does the rest.
 *
 * <h2>Timeouts: the bound on every answer</h2>
 * {@link #maxAnswerTime()} is {@code max.block.ms + delivery.timeout.ms} (defaults 5 s + 9 s = 14 s): {@code send}
 * blocks at most {@code max.block.ms} (a record that did not get metadata or buffer space by then is never sent), and
 * the producer answers every record it accepted within {@code delivery.timeout.ms}, its own retries included; a record
 * it gives up on is not retried after that. {@code delivery.timeout.ms} must be at least
 * {@code request.timeout.ms + linger.ms}, so an in-flight request is answered or timed out (and its connection closed)
 * before the record is expired. These four settings are owned by the builder; passing them through
 * {@link Builder#withProducerProperty} is refused. The relay's delivery timeout and lease must be at least this bound
 * (its builder refuses shorter ones), so no other relay sends the entry again while a copy may still land.
 *
 * <p>Failures are classified as described in {@link KafkaFailureClassifier} and in {@code docs/transport-kafka.md}.
 *
 * <h2>Transactional mode (exactly once for {@code read_committed} consumers)</h2>
 * Off by default. With {@link Builder#withTransactions}, {@link #atomicBatches} offers every destination a lane that
 * sends each batch as one Kafka transaction, and {@link #deliver} sends a batch of one through it; see
 * {@link TransactionalLane} for why such a batch never lands after its lease, and {@link ProgressLog} for the record
 * that tells later which batches committed.
 *
 * <p>What stays here is the transport's face and its configuration (the builder and {@code fromProperties}, most of
 * the file); the record layout ({@link KafkaRecords}), security ({@link KafkaSecurity}), failure classification and the
 * transactional mode live in their own classes.
 *
 * <p>Thread-safe: one producer is shared by all callers. Dependent stages of the returned stage run on the producer's
 * I/O thread and must be short. Never logs payloads; configuration values (which may hold secrets such as
 * {@code sasl.jaas.config}) are never logged or put in exception messages by this class.
 */
public final class KafkaTransport implements Transport {
  /** Default header that carries the message id. */
  public static final String DEFAULT_MESSAGE_ID_HEADER = "message-id";
  /** Default header that carries the content type. */
  public static final String DEFAULT_CONTENT_TYPE_HEADER = "content-type";
  /** Default {@code client.id}. */
  public static final String DEFAULT_CLIENT_ID = "outbox4j";
  /** Default {@code request.timeout.ms}: 5 s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /** Default {@code delivery.timeout.ms}: 9 s, so a send is answered inside the relay's default 10 s wait. */
  public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(9);
  /** Default {@code max.block.ms}: 5 s (metadata fetch or full buffer inside {@link #deliver}). */
  public static final Duration DEFAULT_MAX_BLOCK = Duration.ofSeconds(5);
  /** Default {@code linger.ms}: 5 ms, enough for a relay batch to share requests. */
  public static final Duration DEFAULT_LINGER = Duration.ofMillis(5);

  /** Producer settings this transport owns: a passthrough property may not set them. */
  private static final Map<String, String> OWNED_SETTINGS = ownedSettings();

  private final @Nullable Producer<byte[], byte[]> producer;
  private final @Nullable TransactionalLane lane;
  private final KafkaRecords records;
  private final KafkaFailureClassifier classifier;
  private final Duration closeTimeout;
  private final Duration maxBlock;
  private final Duration maxAnswerTime;
  private final Clock clock;
  private final ConcurrentMap<String, Stall> stalls = new ConcurrentHashMap<>();
  private final String description;

  private KafkaTransport(Builder builder, @Nullable Producer<byte[], byte[]> producer,
      @Nullable TransactionalLane lane) {
    this.producer = producer;
    this.lane = lane;
    this.records = new KafkaRecords(builder.topicMapping, builder.messageIdHeader, builder.contentTypeHeader);
    this.classifier = new KafkaFailureClassifier(builder.missingTopicPermanent);
    this.closeTimeout = builder.deliveryTimeout;
    this.maxBlock = builder.maxBlock;
    this.maxAnswerTime = builder.transactions != null
        ? builder.transactions.maxAnswerTime()
        : builder.maxBlock.plus(builder.deliveryTimeout);
    this.clock = builder.clock;
    this.description = "KafkaTransport[bootstrap.servers=" + builder.bootstrapServers
        + ", client.id=" + builder.clientId + "]";
  }

  /** @return a builder with the defaults; not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a transport from flat string properties, the form the runnable relay and the Spring starter use.
   *
   * <table>
   *   <caption>Keys</caption>
   *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
   *   <tr><td>{@code bootstrap.servers}</td><td>required; {@code host:port[,host:port...]}</td><td>—</td></tr>
   *   <tr><td>{@code client.id}</td><td>the producer's client id</td><td>{@value #DEFAULT_CLIENT_ID}</td></tr>
   *   <tr><td>{@code topic.prefix}</td><td>prepended to the destination to form the topic</td><td>none</td></tr>
   *   <tr><td>{@code request.timeout}</td><td>duration: {@code 5s}, {@code 500ms}, {@code 2m} or ISO-8601
   *       {@code PT5S}</td><td>5s</td></tr>
   *   <tr><td>{@code delivery.timeout}</td><td>duration</td><td>9s</td></tr>
   *   <tr><td>{@code max.block}</td><td>duration</td><td>5s</td></tr>
   *   <tr><td>{@code linger}</td><td>duration</td><td>5ms</td></tr>
   *   <tr><td>{@code header.message-id}</td><td>header name for the message id</td><td>message-id</td></tr>
   *   <tr><td>{@code header.content-type}</td><td>header name for the content type</td><td>content-type</td></tr>
   *   <tr><td>{@code missing-topic.permanent}</td><td>{@code true} quarantines messages for a topic that does not
   *       exist</td><td>false</td></tr>
   *   <tr><td>{@code kafka.<name>}</td><td>any other producer setting, passed through as {@code <name>} (for example
   *       {@code kafka.security.protocol}, {@code kafka.sasl.jaas.config}, {@code kafka.compression.type})</td>
   *       <td>—</td></tr>
   *   <tr><td>{@code tls.*}, {@code sasl.mechanism}, {@code sasl.username}, {@code sasl.password}</td><td>TLS and
   *       SASL without writing Kafka's own settings: see {@code KafkaSecurity}</td><td>—</td></tr>
   *   <tr><td>{@code transactions.enabled}</td><td>{@code true}: each batch is one Kafka transaction
   *       ({@link Builder#withTransactions})</td><td>false</td></tr>
   *   <tr><td>{@code transactions.id-prefix}, {@code .progress-topic}, {@code .progress-retention},
   *       {@code .start-bound}, {@code .timeout}, {@code .abort-sweep}, {@code .clock-skew}, {@code .producers}</td>
   *       <td>see {@link KafkaTransactions}</td><td>outbox4j, outbox4j-progress, 7d, 10s, 5s, 10s, 1s, 2</td></tr>
   *   <tr><td>{@code <key>-file}</td><td>any key above, its value read from the file</td><td>—</td></tr>
   * </table>
   *
   * @param properties the settings; unknown keys are rejected so that a typo does not go unnoticed
   * @return the transport, connected lazily (the producer connects on first use)
   * @throws IllegalArgumentException naming the first missing, unknown or malformed key (never echoing a value)
   * @throws OutboxException if the Kafka producer cannot be created
   */
  public static KafkaTransport fromProperties(Map<String, String> properties) {
    Objects.requireNonNull(properties, "properties");
    Builder builder = builder();
    Map<String, String> remaining = KafkaSecurity.resolveFiles(properties);
    KafkaSecurity.producerSettings(remaining).forEach(builder::withProducerProperty);
    List<String> unknown = new ArrayList<>();
    Map<String, String> transactions = new HashMap<>();
    for (Map.Entry<String, String> property : remaining.entrySet()) {
      String key = property.getKey();
      String value = Objects.requireNonNull(property.getValue(), () -> "value of " + key);
      switch (key) {
        case "bootstrap.servers" -> builder.withBootstrapServers(value);
        case "client.id" -> builder.withClientId(value);
        case "topic.prefix" -> builder.withTopicMapping(prefixMapping(value));
        case "request.timeout" -> builder.withRequestTimeout(PropertyValues.duration(key, value));
        case "delivery.timeout" -> builder.withDeliveryTimeout(PropertyValues.duration(key, value));
        case "max.block" -> builder.withMaxBlock(PropertyValues.duration(key, value));
        case "linger" -> builder.withLinger(PropertyValues.duration(key, value));
        case "header.message-id" -> builder.withMessageIdHeader(value);
        case "header.content-type" -> builder.withContentTypeHeader(value);
        case "missing-topic.permanent" -> builder.withMissingTopicPermanent(PropertyValues.bool(key, value));
        default -> {
          if (key.startsWith("transactions.")) {
            transactions.put(key.substring("transactions.".length()), value);
          } else if (key.startsWith("kafka.") && key.length() > "kafka.".length()) {
            builder.withProducerProperty(key.substring("kafka.".length()), value);
          } else {
            unknown.add(key);
          }
        }
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException("unknown Kafka transport properties " + unknown
          + " (producer settings go under the prefix 'kafka.')");
    }
    KafkaTransactions transactional = KafkaTransactions.fromProperties(transactions);
    if (transactional != null) {
      builder.withTransactions(transactional);
    }
    return builder.build();
  }

  private static Function<Message, String> prefixMapping(String prefix) {
    return message -> prefix + message.destination();
  }

  /**
   * {@inheritDoc}
   *
   * <p>In transactional mode, a batch of one through {@link #atomicBatches}, claimed now.
   */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message) {
    return send(message, null);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Written per the CloudEvents Kafka binding (see {@link KafkaCloudEventsBinding}): {@code ce_} headers and
   * {@code content-type}, the ordering key as the record key; the message id header is sent as well.
   */
  @Override
  public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
    return send(message, event);
  }

  private CompletionStage<DeliveryOutcome> send(Message message, @Nullable CloudEvent event) {
    if (lane != null) {
      return lane.deliverAll(List.of(new Outgoing(message, event)), clock.instant())
          .thenApply(KafkaTransport::outcomeOfOne);
    }
    Producer<byte[], byte[]> producer = Objects.requireNonNull(this.producer, "producer");
    ProducerRecord<byte[], byte[]> record;
    try {
      record = records.recordOf(message, event);
    } catch (KafkaRecords.UnroutableException e) {
      return CompletableFuture.completedFuture(DeliveryOutcome.permanent(e.getMessage()));
    }
    String topic = record.topic();
    Instant now = clock.instant();
    Stall stall = stalls.get(topic);
    if (stall != null) {
      if (now.isBefore(stall.until())) {
        return CompletableFuture.completedFuture(stall.outcome());
      }
      stalls.remove(topic, stall);
    }
    CompletableFuture<DeliveryOutcome> outcome = new CompletableFuture<>();
    AtomicReference<@Nullable Throwable> failedInSend = new AtomicReference<>();
    try {
      producer.send(record, (metadata, error) -> {
        if (error != null) {
          failedInSend.compareAndSet(null, error);
        }
        outcome.complete(error == null ? DeliveryOutcome.delivered() : classifier.classify(error));
      });
    } catch (RuntimeException e) {
      // Thrown rather than passed to the callback: interrupted, closed producer, or a non-API Kafka failure.
      outcome.complete(classifier.classify(e));
    }
    Throwable error = failedInSend.get();
    if (outcome.isDone() && error instanceof TimeoutException) {
      // send() itself waited max.block for metadata and gave up: remember it, so the rest of this batch fails at
      // once instead of blocking the caller max.block each.
      stalls.put(topic, new Stall(clock.instant().plus(maxBlock), stalledOutcome(outcome.join())));
    }
    return outcome;
  }

  private static DeliveryOutcome outcomeOfOne(BatchOutcome outcome) {
    if (outcome instanceof BatchOutcome.Aborted aborted) {
      return aborted.failure();
    }
    if (outcome instanceof BatchOutcome.AbortedBy abortedBy) {
      return abortedBy.failure();
    }
    if (outcome instanceof BatchOutcome.NotDelivered notDelivered) {
      return DeliveryOutcome.retryable("not delivered: " + notDelivered.reason());
    }
    if (outcome instanceof BatchOutcome.InDoubt inDoubt) {
      return DeliveryOutcome.retryable("in doubt: " + inDoubt.reason());
    }
    return DeliveryOutcome.delivered();
  }

  private static DeliveryOutcome stalledOutcome(DeliveryOutcome original) {
    String prefix = "not sent: the previous send to this topic found no metadata within max.block: ";
    if (original instanceof DeliveryOutcome.Permanent permanent) {
      return DeliveryOutcome.permanent(prefix + permanent.reason());
    }
    if (original instanceof DeliveryOutcome.Retryable retryable) {
      return retryable.transportUnavailable()
          ? DeliveryOutcome.unavailable(prefix + retryable.reason())
          : DeliveryOutcome.retryable(prefix + retryable.reason());
    }
    return original;
  }

  /** A topic whose metadata the producer could not get: until when to fail fast, and with what. */
  private record Stall(Instant until, DeliveryOutcome outcome) {}

  /**
   * {@inheritDoc}
   *
   * <p>{@code max.block.ms + delivery.timeout.ms}; in transactional mode
   * {@code startBound + timeout + abortSweep + clockSkew} ({@link KafkaTransactions#maxAnswerTime()}).
   */
  @Override
  public Duration maxAnswerTime() {
    return maxAnswerTime;
  }

  /**
   * {@inheritDoc}
   *
   * <p>In transactional mode, the same lane for every destination: each batch one Kafka transaction.
   */
  @Override
  public @Nullable AtomicBatches atomicBatches(String destination) {
    return lane;
  }

  /** @return the transactional lane, or {@code null}; for tests */
  @Nullable TransactionalLane lane() {
    return lane;
  }

  /**
   * Reads the settings of the transactional mode's progress topic through the admin client and judges them
   * ({@link ProgressTopicCheck}: what the transport refuses, what it warns about). Blocking, each call bounded by the
   * request timeout. For start-up checks and tools such as the relay's {@code doctor}; the transport runs the same
   * check   * on its own at start (in the background, logging what it finds) and before its first batch.
   *
   * @return the findings, refusals first; empty when the topic is fit for use, or does not exist yet (the transport
   *     creates it with the right settings at first use)
   * @throws IllegalStateException if the transactional mode is off
   * @throws OutboxException if the cluster cannot be asked
   */
  public List<ProgressTopicCheck.Finding> checkProgressTopic() {
    if (lane == null) {
      throw new IllegalStateException("the Kafka transport has no progress topic: its transactional mode is off");
    }
    return lane.checkProgressTopic();
  }

  /**
   * Flushes what is buffered and closes the producer, waiting at most the delivery timeout; sends still unanswered
   * then fail (retryable). Idempotent.
   */
  @Override
  public void close() {
    if (producer != null) {
      producer.close(closeTimeout);
    }
    if (lane != null) {
      lane.close();
    }
  }

  /** Names the servers and client id; never a secret. */
  @Override
  public String toString() {
    return description;
  }

  private static Map<String, String> ownedSettings() {
    Map<String, String> owned = new LinkedHashMap<>();
    owned.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "withBootstrapServers");
    owned.put(ProducerConfig.CLIENT_ID_CONFIG, "withClientId");
    owned.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "nothing (keys are UTF-8 ordering keys)");
    owned.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "nothing (payloads are sent verbatim)");
    owned.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "nothing (always true)");
    owned.put(ProducerConfig.ACKS_CONFIG, "nothing (always all)");
    owned.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "withTransactions / transactions.id-prefix");
    owned.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "withTransactions / transactions.timeout");
    String bound = " (it is part of the transport's maxAnswerTime, the bound the relay relies on, and is checked"
        + " against the other timeouts)";
    owned.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "withRequestTimeout / request.timeout" + bound);
    owned.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "withDeliveryTimeout / delivery.timeout" + bound);
    owned.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "withMaxBlock / max.block" + bound);
    owned.put(ProducerConfig.LINGER_MS_CONFIG, "withLinger / linger" + bound);
    return Map.copyOf(owned);
  }

  /**
   * Configures a {@link KafkaTransport}. Not thread-safe; {@link #build()} creates the producer and an immutable,
   * thread-safe transport.
   */
  public static final class Builder {
    private @Nullable String bootstrapServers;
    private String clientId = DEFAULT_CLIENT_ID;
    private Function<Message, String> topicMapping = Message::destination;
    private String messageIdHeader = DEFAULT_MESSAGE_ID_HEADER;
    private String contentTypeHeader = DEFAULT_CONTENT_TYPE_HEADER;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration deliveryTimeout = DEFAULT_DELIVERY_TIMEOUT;
    private Duration maxBlock = DEFAULT_MAX_BLOCK;
    private Duration linger = DEFAULT_LINGER;
    private boolean missingTopicPermanent;
    private Clock clock = Clock.systemUTC();
    private @Nullable KafkaTransactions transactions;
    private final Map<String, String> producerProperties = new HashMap<>();

    private Builder() {}

    /**
     * @param servers required; {@code host:port[,host:port...]}, the producer's {@code bootstrap.servers}
     * @return this builder
     */
    public Builder withBootstrapServers(String servers) {
      this.bootstrapServers = Objects.requireNonNull(servers, "bootstrapServers");
      return this;
    }

    /**
     * @param id the producer's {@code client.id}; default {@value KafkaTransport#DEFAULT_CLIENT_ID}
     * @return this builder
     */
    public Builder withClientId(String id) {
      this.clientId = Objects.requireNonNull(id, "clientId");
      return this;
    }

    /**
     * @param mapping turns a message into its topic; default the destination unchanged. Must be thread-safe and fast;
     *     a mapping that throws or returns a blank topic makes the delivery a permanent failure.
     * @return this builder
     */
    public Builder withTopicMapping(Function<Message, String> mapping) {
      this.topicMapping = Objects.requireNonNull(mapping, "topicMapping");
      return this;
    }

    /**
     * @param name the header that carries the message id; default {@value KafkaTransport#DEFAULT_MESSAGE_ID_HEADER}
     * @return this builder
     */
    public Builder withMessageIdHeader(String name) {
      this.messageIdHeader = Objects.requireNonNull(name, "messageIdHeader");
      return this;
    }

    /**
     * @param name the header that carries the content type; default
     *     {@value KafkaTransport#DEFAULT_CONTENT_TYPE_HEADER}
     * @return this builder
     */
    public Builder withContentTypeHeader(String name) {
      this.contentTypeHeader = Objects.requireNonNull(name, "contentTypeHeader");
      return this;
    }

    /**
     * @param timeout the producer's {@code request.timeout.ms}: the longest wait for one produce request; default 5 s
     * @return this builder
     */
    public Builder withRequestTimeout(Duration timeout) {
      this.requestTimeout = Objects.requireNonNull(timeout, "requestTimeout");
      return this;
    }

    /**
     * @param timeout the producer's {@code delivery.timeout.ms}: the longest time from {@code send} to the answer,
     *     producer retries included; at least the request timeout plus linger; default 9 s.
     *     {@code maxBlock + deliveryTimeout} is the transport's {@link KafkaTransport#maxAnswerTime()}: the relay's
     *     delivery timeout and lease must be at least that.
     * @return this builder
     */
    public Builder withDeliveryTimeout(Duration timeout) {
      this.deliveryTimeout = Objects.requireNonNull(timeout, "deliveryTimeout");
      return this;
    }

    /**
     * @param timeout the producer's {@code max.block.ms}: how long {@link KafkaTransport#deliver} may block for topic
     *     metadata or buffer space; default 5 s
     * @return this builder
     */
    public Builder withMaxBlock(Duration timeout) {
      this.maxBlock = Objects.requireNonNull(timeout, "maxBlock");
      return this;
    }

    /**
     * @param delay the producer's {@code linger.ms}: how long it waits to fill a batch; default 5 ms
     * @return this builder
     */
    public Builder withLinger(Duration delay) {
      this.linger = Objects.requireNonNull(delay, "linger");
      return this;
    }

    /**
     * @param permanent {@code true} to quarantine a message whose topic does not exist (after {@code max.block.ms});
     *     default {@code false}: retried, since topics are often created by a deployment step that may lag
     * @return this builder
     */
    public Builder withMissingTopicPermanent(boolean permanent) {
      this.missingTopicPermanent = permanent;
      return this;
    }

    /**
     * @param source the time used to remember, for one {@code max.block}, that a topic's metadata could not be had;
     *     default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock source) {
      this.clock = Objects.requireNonNull(source, "clock");
      return this;
    }

    /**
     * Turns on the transactional mode: each batch the relay hands over ({@link KafkaTransport#atomicBatches}), and
     * each single delivery, is one Kafka transaction, so {@code read_committed} consumers see every message once. See
     * {@code docs/transport-kafka.md} ("Exactly once").
     *
     * @param settings the transactional settings; off unless given
     * @return this builder
     */
    public Builder withTransactions(KafkaTransactions settings) {
      this.transactions = Objects.requireNonNull(settings, "transactions");
      return this;
    }

    /**
     * Passes one setting to the Kafka producer unchanged (security, compression, batch size, ...). The settings this
     * transport owns (serializers, idempotence, acks, transactional id, bootstrap servers, client id and the timeouts
     * that have their own builder methods) are rejected at {@link #build()}.
     *
     * @param name a producer setting name, such as {@code security.protocol}
     * @param value its value; may be a secret (never logged by this transport)
     * @return this builder
     */
    public Builder withProducerProperty(String name, String value) {
      producerProperties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, () -> name));
      return this;
    }

    /**
     * @return the transport; its producer connects lazily, so an unreachable broker shows up as retryable deliveries
     * @throws IllegalArgumentException naming the first option that is missing or out of range
     * @throws OutboxException if the Kafka producer cannot be created (for example an unresolvable bootstrap address
     *     or a malformed passthrough setting)
     */
    public KafkaTransport build() {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new IllegalArgumentException("bootstrapServers is required");
      }
      requireName("clientId", clientId);
      requireName("messageIdHeader", messageIdHeader);
      requireName("contentTypeHeader", contentTypeHeader);
      if (messageIdHeader.equals(contentTypeHeader)) {
        throw new IllegalArgumentException("messageIdHeader and contentTypeHeader must differ, both were "
            + messageIdHeader);
      }
      requirePositive("requestTimeout", requestTimeout);
      requirePositive("deliveryTimeout", deliveryTimeout);
      requirePositive("maxBlock", maxBlock);
      if (linger.isNegative()) {
        throw new IllegalArgumentException("linger must not be negative, was " + linger);
      }
      if (deliveryTimeout.compareTo(requestTimeout.plus(linger)) < 0) {
        throw new IllegalArgumentException("deliveryTimeout (" + deliveryTimeout
            + ") must be at least requestTimeout + linger (" + requestTimeout.plus(linger) + ")");
      }
      Map<String, Object> config = producerConfig();
      if (transactions != null) {
        TransactionalLane lane = TransactionalClients.lane(transactions, config, clientId,
            new KafkaRecords(topicMapping, messageIdHeader, contentTypeHeader),
            new KafkaFailureClassifier(missingTopicPermanent), requestTimeout, deliveryTimeout, clock);
        lane.checkProgressTopicSoon(); // settings it refuses are logged now, not at the first batch
        return new KafkaTransport(this, null, lane);
      }
      Producer<byte[], byte[]> producer;
      try {
        producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
      } catch (RuntimeException e) {
        throw new OutboxException("cannot create the Kafka producer for " + bootstrapServers + ": "
            + KafkaFailureClassifier.describe(e), e);
      }
      return new KafkaTransport(this, producer, null);
    }

    /**
     * @return the settings the producer is created with: the passthrough ones, then the ones this transport owns
     * @throws IllegalArgumentException if a passthrough setting is one the transport owns
     */
    Map<String, Object> producerConfig() {
      for (String name : producerProperties.keySet()) {
        String owner = OWNED_SETTINGS.get(name);
        if (owner != null) {
          throw new IllegalArgumentException("producer setting " + name + " is owned by the transport; use " + owner);
        }
      }
      Map<String, Object> config = new HashMap<>(producerProperties);
      config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
      config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
      config.put(ProducerConfig.ACKS_CONFIG, "all");
      config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.toIntExact(requestTimeout.toMillis()));
      config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Math.toIntExact(deliveryTimeout.toMillis()));
      config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlock.toMillis());
      config.put(ProducerConfig.LINGER_MS_CONFIG, Math.toIntExact(linger.toMillis()));
      return config;
    }

    private static void requireName(String option, String value) {
      if (value.isBlank()) {
        throw new IllegalArgumentException(option + " must not be blank");
      }
    }

    private static void requirePositive(String option, Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive, was " + value);
      }
    }
  }
}
