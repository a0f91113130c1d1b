package dev.outbox4j.kafka;

import dev.outbox4j.OutboxException;
import dev.outbox4j.spi.DeliveryRecordGoneException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The progress topic: one record per committed transaction, written inside it, naming the messages it carried. A
 * progress record is visible to a {@code read_committed} reader exactly when its batch is, so reading the topic tells
 * which messages of an entry in doubt already landed ({@link #deliveredEarlier}).
 *
 * <h2>Why its timestamp settings matter</h2>
 * A progress record's timestamp is the batch's claim time, and the topic is created with
 * {@code message.timestamp.type=CreateTime} and {@code message.timestamp.before.max.ms} = the start bound B: the broker
 * refuses the record (and so the transaction cannot commit) once the claim is older than B (KIP-937). That is what keeps
 * a frozen relay's batch from landing after its lease, so an existing topic with other settings is refused, naming
 * the setting, rather than used; so is one that could lose records a look-up needs ({@link ProgressTopicCheck}).
 *
 * <h2>Record layout</h2>
 * Timestamp = the claim time; key = the first message id (16 bytes); value = the ids of the batch's messages, 16 bytes
 * each (most significant half first), in batch order. No payload, header or destination is written.
 *
 * <p>Thread-safe: {@link #ensureTopic} is serialised until it succeeded; {@link #deliveredEarlier} creates its own
 * consumer per call, so look-ups on different threads never wait for one another.
 */
final class ProgressLog {
  private static final int ID_BYTES = 16;
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka");

  private final KafkaTransactions settings;
  private final Admin admin;
  private final Function<String, Consumer<byte[], byte[]>> consumers;
  private final Duration requestTimeout;
  private final Clock clock;
  private final AtomicInteger openReaders = new AtomicInteger();
  private volatile boolean verified;
  /** The brokers' transaction settings were judged fit (warnings logged once); guarded by this. */
  private boolean clusterJudged;

  /**
   * @param settings the transactional settings (topic, retention, B, T, sweep, skew)
   * @param admin the admin client, owned by the caller
   * @param consumers creates a {@code read_committed} consumer with the given client id suffix; closed here
   * @param requestTimeout the bound on each admin call
   * @param clock the relay's time, for the wait bound of {@link #deliveredEarlier}
   */
  ProgressLog(KafkaTransactions settings, Admin admin, Function<String, Consumer<byte[], byte[]>> consumers,
      Duration requestTimeout, Clock clock) {
    this.settings = settings;
    this.admin = admin;
    this.consumers = consumers;
    this.requestTimeout = requestTimeout;
    this.clock = clock;
  }

  /**
   * Creates the topic when missing (1 partition, {@code cleanup.policy=delete}, the retention, {@code CreateTime},
   * {@code before.max.ms} = B), or checks the settings of the one that exists ({@link ProgressTopicCheck}; another
   * relay may have created it a moment ago, with the same settings), logging each warning once. Once it succeeded it
   * does nothing.
   *
   * @throws ProgressTopicException if the topic exists with settings the check refuses; its message names them
   * @throws OutboxException if the cluster cannot be asked (retried on the next call)
   */
  void ensureTopic() {
    ensureTopic(new LookupCancellation());
  }

  /**
   * {@link #ensureTopic()}, stopped by {@code cancel}.
   *
   * @throws java.util.concurrent.CancellationException if cancelled
   */
  void ensureTopic(LookupCancellation cancel) {
    if (verified) {
      return;
    }
    synchronized (this) {
      if (verified) {
        return;
      }
      if (!clusterJudged) {
        judgeCluster(cancel);
      }
      String topic = settings.progressTopic();
      NewTopic wanted = new NewTopic(topic, Optional.of(1), Optional.empty()).configs(Map.of(
          TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
          TopicConfig.RETENTION_MS_CONFIG, Long.toString(settings.progressRetention().toMillis()),
          TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime",
          TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.toString(settings.startBound().toMillis())));
      try {
        cancel.watch(admin.createTopics(List.of(wanted), new CreateTopicsOptions().timeoutMs(timeoutMs())).all())
            .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        // Created with the settings above: nothing to check (and a broker may not describe it yet).
        verified = true;
        return;
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new OutboxException("cannot create the progress topic " + topic + ": "
              + KafkaFailureClassifier.describe(e.getCause()), e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new OutboxException("interrupted while creating the progress topic " + topic, e);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new OutboxException("the progress topic " + topic + " was not created within " + requestTimeout, e);
      }
      List<ProgressTopicCheck.Finding> findings = ProgressTopicCheck.check(settings, describe(topic, cancel));
      List<String> refused = findings.stream().filter(f -> f.severity() == ProgressTopicCheck.Severity.REFUSED)
          .map(ProgressTopicCheck.Finding::text).toList();
      if (!refused.isEmpty()) {
        throw new ProgressTopicException(String.join("; ", refused));
      }
      findings.forEach(finding -> LOGGER.log(System.Logger.Level.WARNING, finding.text()));
      verified = true;
    }
  }

  /**
   * The settings of the existing progress topic, judged by {@link ProgressTopicCheck}; creates nothing.
   *
   * @return the findings; empty when the topic is fit for use or does not exist yet (the transport creates it)
   * @throws OutboxException if the cluster cannot be asked
   */
  List<ProgressTopicCheck.Finding> check() {
    String topic = settings.progressTopic();
    try {
      Set<String> names = admin.listTopics(new ListTopicsOptions().timeoutMs(timeoutMs())).names()
          .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!names.contains(topic)) {
        return List.of();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while listing topics", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new OutboxException("cannot list the topics: " + KafkaFailureClassifier.describe(cause), cause);
    }
    return ProgressTopicCheck.check(settings, describe(topic, new LookupCancellation()));
  }

  private Map<String, String> describe(String topic, LookupCancellation cancel) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      Config config = cancel.watch(admin.describeConfigs(List.of(resource),
              new DescribeConfigsOptions().timeoutMs(timeoutMs())).all())
          .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS).get(resource);
      Map<String, String> values = new HashMap<>();
      for (ConfigEntry entry : config.entries()) {
        if (entry.value() != null) {
          values.put(entry.name(), entry.value());
        }
      }
      return values;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while reading the settings of the progress topic " + topic, e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new OutboxException("cannot read the settings of the progress topic " + topic + ": "
          + KafkaFailureClassifier.describe(cause), cause);
    }
  }

  /**
   * @param ids the batch's message ids, in order; not empty
   * @param claimedAt the claim time: the record's timestamp, which the broker checks against B
   * @return the progress record of that batch
   */
  ProducerRecord<byte[], byte[]> recordOf(List<UUID> ids, Instant claimedAt) {
    ByteBuffer value = ByteBuffer.allocate(ids.size() * ID_BYTES);
    ids.forEach(id -> value.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()));
    byte[] key = ByteBuffer.allocate(ID_BYTES).putLong(ids.get(0).getMostSignificantBits())
        .putLong(ids.get(0).getLeastSignificantBits()).array();
    return new ProducerRecord<>(settings.progressTopic(), null, claimedAt.toEpochMilli(), key, value.array());
  }

  /**
   * @param value a progress record's value
   * @return the message ids it names; a value that is not a whole number of ids yields the whole ones
   */
  static List<UUID> idsOf(byte[] value) {
    ByteBuffer buffer = ByteBuffer.wrap(value);
    List<UUID> ids = new ArrayList<>(value.length / ID_BYTES);
    while (buffer.remaining() >= ID_BYTES) {
      ids.add(new UUID(buffer.getLong(), buffer.getLong()));
    }
    return ids;
  }

  /**
   * Which of these messages a committed transaction carried, since {@code since - clockSkew}. Blocking; stopped at once
   * by {@code cancel}.
   *
   * <p>It first takes each partition's high watermark (every record appended so far, committed or not), then reads
   * committed records from the first one stamped at or after {@code since - clockSkew} until its position passes that
   * watermark, or until every id asked about was found (the answer can then not change). A {@code read_committed}
   * reader cannot pass a transaction that is still open, so once it is past the watermark every transaction that wrote
   * before it is final: a batch sent under an earlier claim either shows here or never lands. The coordinator finishes
   * an open transaction within T + sweep, so the wait is bounded by {@code timeout + abortSweep + clockSkew} plus the
   * request timeout. The consumer is this call's own, and is closed when it returns, however it returns.
   *
   * @param ids the messages asked about
   * @param since the earliest claim under which one of them may have been sent
   * @param cancel stops the look-up from another thread
   * @return the ids, among {@code ids}, of messages that landed
   * @throws DeliveryRecordGoneException if records from that time may have been deleted (retention)
   * @throws java.util.concurrent.CancellationException if cancelled
   * @throws OutboxException if the topic cannot be read now, or the watermark was not reached in time
   */
  Set<UUID> deliveredEarlier(Collection<UUID> ids, Instant since, LookupCancellation cancel) {
    ensureTopic(cancel);
    String topic = settings.progressTopic();
    Instant from = since.minus(settings.clockSkew());
    List<TopicPartition> partitions = partitions(topic, cancel);
    Map<TopicPartition, Long> watermarks = offsets(partitions, OffsetSpec.latest(), cancel);
    Map<TopicPartition, Long> starts = offsets(partitions, OffsetSpec.earliest(), cancel);
    Map<TopicPartition, Long> firstFrom = offsets(partitions, OffsetSpec.forTimestamp(from.toEpochMilli()), cancel);
    Map<TopicPartition, Long> seekTo = new HashMap<>();
    for (TopicPartition partition : partitions) {
      long logStart = starts.get(partition);
      long first = firstFrom.get(partition);
      long watermark = watermarks.get(partition);
      boolean emptied = logStart > 0 && logStart >= watermark;
      boolean newerThanAsked = logStart > 0 && first >= 0 && first <= logStart;
      if (emptied || newerThanAsked) {
        throw new DeliveryRecordGoneException("the progress topic " + topic + " (partition " + partition.partition()
            + ") no longer holds records from " + from + ": its oldest ones were deleted (retention.ms; this transport"
            + " creates it with " + settings.progressRetention() + "), so whether these entries landed cannot be told");
      }
      seekTo.put(partition, first >= 0 ? first : watermark);
    }
    Set<UUID> wanted = new HashSet<>(ids);
    Set<UUID> found = new HashSet<>();
    Duration bound = settings.timeout().plus(settings.abortSweep()).plus(settings.clockSkew()).plus(requestTimeout);
    Instant deadline = clock.instant().plus(bound);
    cancel.check();
    Consumer<byte[], byte[]> consumer = consumers.apply("progress");
    openReaders.incrementAndGet();
    try {
      cancel.watch(consumer);
      consumer.assign(partitions);
      seekTo.forEach(consumer::seek);
      while (found.size() < wanted.size() && !passed(consumer, watermarks)) {
        if (clock.instant().isAfter(deadline)) {
          throw new OutboxException("reading the progress topic " + topic + " did not pass the transactions open"
              + " when it started within " + bound + " (timeout + abortSweep + clockSkew + requestTimeout)");
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          for (UUID id : idsOf(record.value())) {
            if (wanted.contains(id)) {
              found.add(id);
            }
          }
        }
      }
    } catch (WakeupException e) {
      throw new CancellationException("the look-up of the progress topic " + topic + " was cancelled");
    } finally {
      cancel.release();
      try {
        consumer.close();
      } finally {
        openReaders.decrementAndGet();
      }
    }
    return found;
  }

  /** @return how many look-ups hold a consumer of the progress topic now; for tests and diagnostics */
  int openReaders() {
    return openReaders.get();
  }

  /** @return the request timeout as an admin call's own time-out, so that no call outlives it */
  private int timeoutMs() {
    return (int) Math.min(Integer.MAX_VALUE, requestTimeout.toMillis());
  }

  private static boolean passed(Consumer<byte[], byte[]> consumer, Map<TopicPartition, Long> watermarks) {
    return watermarks.entrySet().stream().allMatch(mark -> consumer.position(mark.getKey()) >= mark.getValue());
  }

  private List<TopicPartition> partitions(String topic, LookupCancellation cancel) {
    try {
      return cancel.watch(admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(timeoutMs()))
              .allTopicNames())
          .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().stream()
          .map(partition -> new TopicPartition(topic, partition.partition())).toList();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while describing the progress topic " + topic, e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new OutboxException("cannot describe the progress topic " + topic + ": "
          + KafkaFailureClassifier.describe(cause), cause);
    }
  }

  /** Offsets as a {@code read_uncommitted} reader sees them: for {@code latest}, the high watermark. */
  private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec,
      LookupCancellation cancel) {
    Map<TopicPartition, OffsetSpec> request = partitions.stream()
        .collect(Collectors.toMap(partition -> partition, partition -> spec));
    try {
      Map<TopicPartition, ListOffsetsResultInfo> answer = cancel.watch(admin
          .listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED).timeoutMs(timeoutMs())).all())
          .get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      Map<TopicPartition, Long> offsets = new HashMap<>();
      answer.forEach((partition, info) -> offsets.put(partition, info.offset()));
      return offsets;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while listing offsets of the progress topic", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new OutboxException("cannot list offsets of the progress topic " + settings.progressTopic() + ": "
          + KafkaFailureClassifier.describe(cause), cause);
    }
  }

  /**
   * The brokers' transaction settings ({@link ClusterSettingsCheck}): refused ones fail this call, naming the setting;
   * warnings are logged once.
   *
   * @throws ClusterSettingsException if a setting is refused
   */
  private void judgeCluster(LookupCancellation cancel) {
    List<ProgressTopicCheck.Finding> findings = ClusterSettingsProbe.judge(admin, settings, requestTimeout, cancel);
    List<String> refused = findings.stream().filter(f -> f.severity() == ProgressTopicCheck.Severity.REFUSED)
        .map(ProgressTopicCheck.Finding::text).toList();
    if (!refused.isEmpty()) {
      throw new ClusterSettingsException(String.join("; ", refused));
    }
    findings.forEach(finding -> LOGGER.log(System.Logger.Level.WARNING, finding.text()));
    clusterJudged = true;
  }

  /** The brokers' transaction settings keep every transaction from starting or writing; its message names them. */
  static final class ClusterSettingsException extends OutboxException {
    private static final long serialVersionUID = 1L;

    ClusterSettingsException(String message) {
      super(message);
    }
  }

  /** The progress topic exists with settings that would let a late batch commit; its message names the setting. */
  static final class ProgressTopicException extends OutboxException {
    private static final long serialVersionUID = 1L;

    ProgressTopicException(String message) {
      super(message);
    }
  }
}
