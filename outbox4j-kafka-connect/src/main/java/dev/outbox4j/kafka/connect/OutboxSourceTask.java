package dev.outbox4j.kafka.connect;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OutboxStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.jspecify.annotations.Nullable;

/**
 * Drains an outbox4j outbox into Kafka from one task slot.
 *
 * <h2>A poll</h2>
 * Retire what the last batch's committed records carried; if that batch is not settled yet, return nothing. Otherwise
 * claim up to {@code batch.size} entries under a lease of {@code lease.ms} (runs of a key up to {@code max.run}),
 * retire instead of sending the claimed entries in doubt that a committed offset lists, quarantine an entry that cannot
 * become a record Kafka accepts (and hand back the rest of its key's run, so nothing overtakes it), and return the
 * rest as records carrying this slot's partition and the poll's offset ({@link SourceOffsets}). With exactly once on,
 * Connect commits them and the offset in one transaction, then reports each record ({@link #commitRecord}) and calls
 * {@link #commit}, where the task retires the batch in the outbox (one fenced {@code markDelivered}). After a full
 * batch, the connector's only task claims the next one meanwhile on a thread of its own ({@link NextBatch}): the next
 * poll takes it once the last batch is settled, instead of claiming then.
 *
 * <h2>Why order holds across tasks</h2>
 * The store hands out at most one claim per key (a head and its run) at a time, and the key's next entry becomes
 * claimable only once this one is retired, which happens after its record is committed. A run is one poll, one
 * transaction, one partition (same key), in order.
 *
 * <h2>Fencing</h2>
 * Connect fences a task's earlier generation (its transactional id); the store fences a stale claim (its token). A
 * transaction still open when its lease ends is certain to be aborted: the lease exceeds the producer's transaction
 * timeout plus a margin, checked at configuration time. A batch is handed to Connect only within its send window (the
 * lease less the transaction timeout and the margin, counted from the claim's start): the window is checked when the
 * claim returns and again right before the poll returns the records, so a task that stalled in between (a pause of its
 * JVM, a stopped process) hands the batch back unsent instead of sending entries another task may have taken over.
 *
 * <h2>Metrics</h2>
 * Claimed, committed, settled from offsets, quarantined, records in flight and poll time, through Connect's plugin
 * metrics ({@link TaskMetrics}).
 *
 * <p>Not thread-safe beyond what Connect requires: {@link #poll} runs on the task thread, {@link #commitRecord} may
 * run on the producer's thread, {@link #commit} on the offset committer's thread when exactly once is off.
 */
public final class OutboxSourceTask extends SourceTask {
  private static final System.Logger LOGGER = System.getLogger("dev.outbox4j.kafka.connect");
  /** The task setting that carries the task's slot. */
  static final String SLOT = "outbox.task.slot";
  /** The task setting that carries how many tasks the connector runs. */
  static final String SLOTS = "outbox.task.slots";
  /** The longest a stopping task waits for its claim ahead to return, to hand the batch back. */
  private static final Duration CLAIM_AHEAD_WAIT = Duration.ofSeconds(10);

  private final Clock clock;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final InFlightBatch inFlight = new InFlightBatch();
  private final Set<UUID> unsettledLanded = Collections.synchronizedSet(new LinkedHashSet<>());

  private @Nullable HikariDataSource dataSource;
  private @Nullable OutboxStore store;
  private @Nullable LandedEntries landed;
  private @Nullable OutboxRecords records;
  private @Nullable OutboxSourceConfig config;
  private Map<String, Object> partition = Map.of();
  private Duration sendWindow = Duration.ZERO;
  private @Nullable TaskMetrics metrics;
  private @Nullable NextBatch next;
  /** Whether this task claims its next batch while Connect commits the last: the connector's only task does. */
  private boolean claimAhead;

  /** For Connect, which instantiates tasks by class. */
  public OutboxSourceTask() {
    this(Clock.systemUTC());
  }

  OutboxSourceTask(Clock clock) {
    this.clock = clock;
  }

  @Override
  public String version() {
    return OutboxSourceConnector.VERSION;
  }

  @Override
  public void start(Map<String, String> settings) {
    OutboxSourceConfig parsed = new OutboxSourceConfig(settings);
    config = parsed;
    int slot = Integer.parseInt(settings.getOrDefault(SLOT, "0"));
    partition = SourceOffsets.partition(parsed.tablePrefix(), slot);
    long transactionTimeout = OutboxSourceConfig.transactionTimeoutMs(settings);
    // A batch handed to Connect by claim time + this window commits or is aborted before its lease ends.
    sendWindow = parsed.lease().minusMillis(transactionTimeout + OutboxSourceConfig.ABORT_MARGIN_MS);
    dataSource = dataSource(parsed, slot);
    JdbcOutboxStore jdbcStore = JdbcOutboxStore.builder(dataSource).withTablePrefix(parsed.tablePrefix())
        .withClock(clock).withPreparedStatements(parsed.preparedStatements()).build();
    store = jdbcStore;
    landed = new LandedEntries(jdbcStore);
    records = new OutboxRecords(parsed.topicMapping(), parsed.messageIdHeader(), parsed.contentTypeHeader(),
        parsed.maxRecordBytes());
    metrics = TaskMetrics.of(context, inFlight::awaitingCount);
    next = new NextBatch(slot, NextBatch.HOLD, jdbcStore::release);
    // With more tasks, one task's claim already overlaps another's transaction, and claims ahead would hold the heads
    // of more keys than a backlog behind few keys has: the others' claims would come back empty.
    claimAhead = settings.getOrDefault(SLOTS, "").equals("1");
    // A crash between Kafka's commit and the outbox's leaves the last batch listed in this slot's committed offset.
    unsettledLanded.addAll(SourceOffsets.entriesOf(context.offsetStorageReader().offset(partition)));
    LOGGER.log(System.Logger.Level.INFO, "outbox task slot {0} started; {1} entries of its last committed batch to"
        + " settle", slot, unsettledLanded.size());
  }

  private static HikariDataSource dataSource(OutboxSourceConfig config, int slot) {
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(config.jdbcUrl());
    if (!config.jdbcUser().isEmpty()) {
      hikari.setUsername(config.jdbcUser());
    }
    if (!config.jdbcPassword().isEmpty()) {
      hikari.setPassword(config.jdbcPassword());
    }
    hikari.setMaximumPoolSize(config.poolSize());
    hikari.setPoolName("outbox4j-connect-" + slot);
    // Start while the database is down: the polls fail and retry, as a relay's passes do.
    hikari.setInitializationFailTimeout(-1);
    return new HikariDataSource(hikari);
  }

  @Override
  public @Nullable List<SourceRecord> poll() throws InterruptedException {
    OutboxSourceConfig settings = required(config);
    required(metrics).publish(); // a name the task's previous instance held at start
    try {
      if (!settle()) {
        inFlight.awaitAnswers(settings.pollInterval().toMillis());
        return null;
      }
      Instant started = clock.instant();
      List<SourceRecord> polled = claimAndBuild(settings);
      if (polled.isEmpty()) {
        stopping.await(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
        return null;
      }
      required(metrics).polled(Duration.between(started, clock.instant()));
      return polled;
    } catch (OutboxException e) {
      // The database failed: nothing was claimed, or the claim is held until its lease ends. Try again later.
      LOGGER.log(System.Logger.Level.WARNING, "outbox unavailable: {0}", e.getMessage());
      stopping.await(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
      return null;
    }
  }

  /** @return {@code true} when the last batch is settled and a new claim may be made */
  private boolean settle() {
    retireAnswered();
    for (UUID id : List.copyOf(unsettledLanded)) {
      LandedEntries.Outcome outcome = required(landed).retire(id);
      if (outcome != LandedEntries.Outcome.TRY_AGAIN) {
        unsettledLanded.remove(id);
      }
      if (outcome == LandedEntries.Outcome.RETIRED) {
        required(metrics).settled(1);
      }
    }
    return unsettledLanded.isEmpty() && inFlight.settled();
  }

  /** Retires the entries whose records Connect reported committed. Safe on any thread. */
  private void retireAnswered() {
    OutboxStore outbox = store;
    if (outbox == null) {
      return;
    }
    List<Claim> answered = inFlight.takeAnswered();
    if (answered.isEmpty()) {
      return;
    }
    List<Claim> lost;
    try {
      lost = outbox.markDelivered(answered, clock.instant());
    } catch (OutboxException e) {
      inFlight.putBack(answered);
      throw e;
    }
    // Taken over after the lease ran out: retired through the entry face (whoever holds them reads our offset).
    lost.forEach(claim -> unsettledLanded.add(claim.id()));
    TaskMetrics counts = metrics;
    if (counts != null) {
      counts.committed(answered.size() - lost.size());
    }
  }

  private List<SourceRecord> claimAndBuild(OutboxSourceConfig settings) throws InterruptedException {
    OutboxStore outbox = required(store);
    NextBatch.Claimed claimed = required(next).take();
    if (claimed == null || claimed.claims().isEmpty()) {
      claimed = claimNow(settings);
    }
    Instant now = claimed.at();
    List<Claim> claims = claimed.claims();
    if (claims.isEmpty()) {
      return List.of();
    }
    required(metrics).claimed(claims.size());
    Instant sendBy = now.plus(sendWindow);
    if (clock.instant().isAfter(sendBy)) {
      outbox.release(claims); // too much of the lease is gone for a transaction to end before it
      return List.of();
    }
    List<Claim> toSend = new ArrayList<>(claims);
    List<Claim> inDoubt = claims.stream().filter(Claim::inDoubt).toList();
    if (!inDoubt.isEmpty()) {
      Set<UUID> listed = SourceOffsets.landedInAnySlot(context.offsetStorageReader(), settings.tablePrefix(),
          settings.settleSlots());
      List<Claim> landedEarlier = SourceOffsets.among(inDoubt, listed);
      if (!landedEarlier.isEmpty()) {
        List<Claim> lost = outbox.markDelivered(landedEarlier, clock.instant());
        lost.forEach(claim -> unsettledLanded.add(claim.id()));
        required(metrics).settled(landedEarlier.size() - lost.size());
        toSend.removeAll(landedEarlier);
      }
      LOGGER.log(System.Logger.Level.INFO, "taken over: {0} entries claimed in doubt (an earlier claim ended"
          + " without an outcome), {1} settled as landed, {2} sent again", inDoubt.size(), landedEarlier.size(),
          inDoubt.size() - landedEarlier.size());
    }
    Batch batch = build(outbox, toSend);
    // Checked again as the records leave: the look-up of the offsets and the build may have stalled (a pause of the
    // worker's JVM, a stopped process) past the window, and records handed to Connect now could still be in an open
    // transaction when the lease ends and another task takes the entries over.
    if (!batch.claims().isEmpty() && clock.instant().isAfter(sendBy)) {
      outbox.release(batch.claims());
      LOGGER.log(System.Logger.Level.WARNING, "{0} claimed entries handed back unsent: the poll reached its end after"
          + " the send window of their lease ({1})", batch.claims().size(), sendBy);
      return List.of();
    }
    inFlight.sent(batch.claims());
    if (claimAhead && claims.size() >= settings.batchSize()) {
      // a backlog is probably waiting: claim it while Connect sends and commits these records
      required(next).claimMeanwhile(() -> claimNow(settings));
    }
    return batch.records();
  }

  /** Claims a batch now (on the task thread, or on the claim ahead's); its send window counts from here. */
  private NextBatch.Claimed claimNow(OutboxSourceConfig settings) {
    Instant now = clock.instant();
    return new NextBatch.Claimed(required(store).claim(settings.batchSize(), now, settings.lease(),
        settings.maxRun()), now);
  }

  /** The claims a poll sends and their records, in the same order. */
  private record Batch(List<Claim> claims, List<SourceRecord> records) {}

  /**
   * Builds the records; quarantines a refused entry and hands back what follows it in its key. The offset lists only
   * the entries whose records are returned: an entry quarantined or handed back here never landed.
   */
  private Batch build(OutboxStore outbox, List<Claim> claims) {
    OutboxRecords layout = required(records);
    Set<String> blockedKeys = new HashSet<>();
    List<Claim> handedBack = new ArrayList<>();
    List<Claim> accepted = new ArrayList<>(claims.size());
    for (Claim claim : claims) {
      Optional<String> key = claim.message().orderingKey();
      if (key.isPresent() && blockedKeys.contains(key.get())) {
        handedBack.add(claim);
        continue;
      }
      Optional<String> refusal = layout.refusal(claim);
      if (refusal.isPresent()) {
        outbox.quarantine(claim, QuarantineReason.permanentFailure(refusal.get()));
        required(metrics).quarantined();
        key.ifPresent(blockedKeys::add);
      } else {
        accepted.add(claim);
      }
    }
    if (!handedBack.isEmpty()) {
      outbox.release(handedBack);
    }
    Map<String, Object> offset = SourceOffsets.offset(accepted);
    List<SourceRecord> built = new ArrayList<>(accepted.size());
    for (Claim claim : accepted) {
      built.add(layout.recordOf(claim, partition, offset));
    }
    return new Batch(accepted, built);
  }

  @Override
  public void commitRecord(SourceRecord record, @Nullable RecordMetadata metadata) {
    // metadata is null when a transform dropped the record: the connector's user chose so, and it is retired too.
    Header id = record.headers().lastWithName(required(records).messageIdHeader());
    if (id != null && id.value() instanceof String text) {
      inFlight.committed(UUID.fromString(text));
    }
  }

  @Override
  public void commit() {
    try {
      retireAnswered();
    } catch (OutboxException e) {
      // Kept: the next poll retires them before it claims anything.
      LOGGER.log(System.Logger.Level.WARNING, "could not retire committed entries yet: {0}", e.getMessage());
    }
  }

  @Override
  public void stop() {
    stopping.countDown();
    TaskMetrics published = metrics;
    if (published != null) {
      published.close(); // before the worker closes the producer: the task's next instance may start meanwhile
    }
    NextBatch ahead = next;
    if (ahead != null) {
      ahead.close(CLAIM_AHEAD_WAIT); // nothing was sent of it: claimable again at once
    }
    HikariDataSource pool = dataSource;
    if (pool != null) {
      pool.close();
    }
  }

  private static <T> T required(@Nullable T value) {
    if (value == null) {
      throw new ConnectException("the outbox task was not started");
    }
    return value;
  }
}
