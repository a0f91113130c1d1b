package dev.outbox4j.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.ClaimStrategy;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.testkit.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One chaos run: a database the suite starts and crashes itself, writer processes, relay processes that are killed,
 * restarted and frozen, a proxy between the relays and their destination that is cut for longer than the retry budget,
 * and then the judgement ({@link ChaosReport}) from the database's commit record, the consumer, the outbox table and
 * the relays' logs.
 *
 * <p>Why it is shaped this way: every fault is applied from this orchestrating JVM to other processes, on one
 * timeline, so a run is reproducible in what it injects (the seed fixes the kill times and the writers' keys) even
 * though the interleavings it provokes are not. Nothing here knows how the library orders, claims or retries; it only
 * counts what came out against what went in. Every wait is bounded; every process and database it started is gone
 * when {@link #run} returns or throws.
 */
final class ChaosRun {
  private static final String PREFIX = "chaos_";
  /** How many times relay 0 is frozen, at most, until a freeze catches it holding claims. */
  private static final int FREEZE_ATTEMPTS = 5;
  /** The options of the suite's child JVMs, logging nowhere ({@code slf4j-nop}). */
  static final List<String> CHILD_JVM = childJvm("org.slf4j.nop.NOPServiceProvider");

  private final ChaosScenario scenario;
  /** How the relays claim; {@code null}: relays alternate between the two strategies, as in a rolling switch. */
  private final @Nullable ClaimStrategy claims;
  private final String label;
  private final Path directory;
  private final Path refuseFlag;
  private final long seed;
  /** Whether a second destination refuses for a while (a writer of its own writes to it). */
  private final boolean refusing;
  /** When and how the second destination refuses; {@code null} without one. */
  private final @Nullable Refusal refusal;
  /** Production's settings: relays through PgBouncer, an operator at work, every deleted outbox row recorded. */
  private final boolean production;
  /** Whether the relays retire a full batch in the next claim's transaction (one commit per batch). */
  private final boolean oneCommitPerBatch;

  /** The destination that refuses everything in a run with {@link #refusing}. */
  static final String REFUSING_DESTINATION = "refusing";

  /**
   * A second destination that refuses every delivery (answers retryable, as a webhook answering 503) from
   * {@code from} to {@code until}, offsets from the writers' start, and accepts everything outside that time.
   *
   * @param from when it starts refusing
   * @param until when it accepts again
   * @param oneKey whether its writer writes one key only (one thread, a commit about every 100 ms), so only that key's
   *     head can ever be tried; otherwise it writes as the other writers do, on keys of its own
   */
  record Refusal(Duration from, Duration until, boolean oneKey) {}

  private ChaosRun(ChaosScenario scenario, @Nullable ClaimStrategy claims, String label, long seed,
      @Nullable Refusal refusal, boolean production) {
    this(scenario, claims, label, seed, refusal, production, false);
  }

  private ChaosRun(ChaosScenario scenario, @Nullable ClaimStrategy claims, String label, long seed,
      @Nullable Refusal refusal, boolean production, boolean oneCommitPerBatch) {
    this.oneCommitPerBatch = oneCommitPerBatch;
    this.refusing = refusal != null;
    this.refusal = refusal;
    this.production = production;
    this.scenario = scenario;
    this.claims = claims;
    this.label = label;
    this.seed = seed;
    this.directory = Path.of("target", "chaos", label.replace('/', '-') + "-" + Instant.now().getEpochSecond());
    this.refuseFlag = directory.resolve("refusing-destination.flag").toAbsolutePath();
  }

  /**
   * Runs a scenario and reports; never throws because a promise was broken (the report says so).
   *
   * @param label names the run's directory under {@code target/chaos}
   * @param scenario what to inject
   * @param claims how the relays' stores hold their claims; {@code null} for relays alternating between the two
   *     strategies (a rolling switch)
   * @param database starts the database: {@link PostgresCluster#start} or {@link MariaDbServer#start}
   * @param consumer the far end of the relays, already set up
   * @param seed fixes kill times, kill targets and the writers' keys
   * @return the report
   */
  static ChaosReport run(String label, ChaosScenario scenario, @Nullable ClaimStrategy claims,
      BiFunction<ChildProcesses, Path, ChaosDatabase> database, ChaosConsumer consumer, long seed) {
    return new ChaosRun(scenario, claims, label, seed, null, false).execute(database, consumer);
  }

  /**
   * Runs a scenario with relays that retire a full batch's last confirmations in the next claim's transaction
   * ({@code JdbcOutboxStore.useOneCommitPerBatch(true)}): one commit per batch, through every usual fault. The relays
   * run two workers each, with batches of 10, so that they take the step often. Each relay prints a line per step, and
   * the report counts them.
   *
   * @return the report, with the steps taken
   */
  static ChaosReport runWithOneCommitPerBatch(String label, ScenarioAndDatabase setup, ChaosConsumer consumer,
      long seed) {
    return new ChaosRun(setup.scenario(), setup.claims(), label, seed, null, false, true)
        .execute(setup.database(), consumer);
  }

  /**
   * Runs a scenario under production's settings, on top of every usual fault: PostgreSQL with
   * {@code synchronous_commit = off} and REPEATABLE READ as the database's default
   * ({@link PostgresCluster#startWithProductionSettings}); the relays (default claims, leased batches) connecting
   * through PgBouncer in transaction mode ({@link PgBouncer}) with pgjdbc's default settings, the writers and the
   * operator directly; an operator ({@link ChaosOperator}) parking, requeuing and discarding entries of the consumer's
   * destination from the relays' start until the writers stop; and a second destination
   * ({@value #REFUSING_DESTINATION}) fed by one key that refuses everything for 20 s while the writers write. Only for
   * the ledger consumer, which keeps arrival times (to judge discards by).
   *
   * @return the report, with the operator's figures and the relays' prepared-statement failures
   */
  static ChaosReport runWithProductionSettings(String label, ChaosScenario scenario, ChaosConsumer consumer,
      long seed) {
    Duration refuseFrom = scenario.relaysAfter().plusSeconds(3);
    return new ChaosRun(scenario, ClaimStrategy.LEASED_BATCHES, label, seed,
        new Refusal(refuseFrom, refuseFrom.plusSeconds(20), true), true)
        .execute(PostgresCluster::startWithProductionSettings, consumer);
  }

  /**
   * Runs a scenario with, beside the consumer's destination, a second one ({@value #REFUSING_DESTINATION}, written by
   * a writer process of its own on keys of its own) that refuses every delivery while the writers write and recovers
   * when they stop. The relays run with an outage backoff of 1 to 5 s. Only for the in-process (ledger) transport,
   * which delivers any destination to the consumer once it is accepted.
   *
   * @return the report, with the refusing destination's figures
   */
  static ChaosReport runWithARefusingDestination(String label, ScenarioAndDatabase setup, ChaosConsumer consumer,
      long seed) {
    return new ChaosRun(setup.scenario(), setup.claims(), label, seed,
        new Refusal(Duration.ZERO, setup.scenario().writeFor(), false), false)
        .execute(setup.database(), consumer);
  }

  /**
   * @param scenario what to inject
   * @param claims how the relays' stores hold their claims; {@code null} for relays alternating between the two
   *     strategies (a rolling switch)
   * @param database starts the database
   */
  record ScenarioAndDatabase(ChaosScenario scenario, @Nullable ClaimStrategy claims,
      BiFunction<ChildProcesses, Path, ChaosDatabase> database) {}

  private ChaosReport execute(BiFunction<ChildProcesses, Path, ChaosDatabase> startDatabase, ChaosConsumer consumer) {
    long started = System.nanoTime();
    Path databases = Path.of("target", "chaos", "databases");
    try (ChildProcesses processes = new ChildProcesses(directory.resolve("logs"));
        ChaosDatabase database = startDatabaseAfterLeftovers(startDatabase, processes, databases);
        PgBouncer bouncer = production ? PgBouncer.start(processes, databases, ((PostgresCluster) database).port(),
            SERVER_POOL_BEHIND_PGBOUNCER) : null;
        TcpProxy startedProxy = consumer.ownProxy() != null ? null
            : TcpProxy.start("127.0.0.1", consumer.servicePort())) {
      TcpProxy proxy = startedProxy != null ? startedProxy : consumer.ownProxy();
      String runLabel = database.kind() + "/" + consumer.label() + "/" + scenario.form()
          + (claims == null ? "/rolling-switch" : "/" + claims.name().toLowerCase(Locale.ROOT))
          + (production ? "/production_settings" : refusing ? "/refusing_destination" : "")
          + (oneCommitPerBatch ? "/one_commit_per_batch" : "");
      if (refusing) {
        Files.createDirectories(directory);
      }
      log("run " + runLabel + " seed " + seed + " in " + directory.toAbsolutePath() + " on " + database
          + (bouncer != null ? ", relays through " + bouncer : ""));
      prepare(database);
      Fleet fleet = new Fleet(processes, database, bouncer != null ? bouncer.jdbcUrl() : database.jdbcUrl(),
          consumer, proxy);
      ChaosOperator operator = production ? new ChaosOperator(database.jdbcUrl(), PREFIX, consumer.destination(),
          mainKeys(), seed, java.time.Clock.systemUTC()) : null;
      ChaosOperator.Record[] operated = new ChaosOperator.Record[1];
      Timeline timeline = new Timeline();
      if (refusing) {
        // The refusal ends by a clock of its own, not on the timeline: a step of the timeline that waits (a freeze
        // waits up to 20 s for a confirmation) would otherwise stretch it.
        Duration refusing = refusal.until().minus(refusal.from());
        timeline.at(refusal.from(), "the refusing destination starts refusing for " + refusing, () -> {
          try {
            Files.writeString(refuseFlag, "refusing everything for " + refusing);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          java.util.concurrent.CompletableFuture.delayedExecutor(refusing.toMillis(),
              java.util.concurrent.TimeUnit.MILLISECONDS).execute(() -> {
                log("t=" + timeline.elapsed().toMillis() + "ms the refusing destination recovers");
                recover();
              });
        });
      }
      fleet.startWriters();
      timeline.at(scenario.relaysAfter(), "start relays", fleet::startRelays);
      Random random = new Random(seed);
      long from = scenario.relaysAfter().plusSeconds(2).toMillis();
      long to = scenario.writeFor().minusSeconds(2).toMillis();
      for (int k = 0; k < scenario.relayKills(); k++) {
        timeline.at(Duration.ofMillis(from + (long) (random.nextDouble() * (to - from))), "kill a relay",
            () -> fleet.killRandomRelay(random));
      }
      for (int k = 0; k < scenario.selfKills(); k++) {
        timeline.at(Duration.ofMillis(from + (long) (random.nextDouble() * (to - from))),
            "arm a self-kill after a commit", fleet::armSelfKill);
      }
      if (scenario.selfKills() > 0) {
        timeline.at(scenario.writeFor(), "disarm self-kills", fleet::disarmSelfKill);
      }
      timeline.at(scenario.databaseCrashAt(), "crash-restart the database",
          () -> database.crashRestart(scenario.databaseDowntime()));
      timeline.at(scenario.freezeAt(), "freeze relay 0", () -> freezeCycle(timeline, fleet, 1));
      timeline.at(scenario.outageAt(), "cut the relays off their destination", proxy::cut);
      timeline.at(scenario.outageAt().plus(scenario.outage()), "restore the destination", proxy::restore);
      if (operator != null) {
        timeline.at(scenario.relaysAfter().plusSeconds(1), "the operator starts parking, requeuing, discarding",
            operator::start);
        timeline.at(scenario.writeFor(), "the operator stops and requeues everything still parked",
            () -> operated[0] = operator.finish());
      }
      try {
        timeline.play(fleet::supervise);
      } finally {
        if (operator != null && operated[0] == null) {
          operated[0] = operator.finish(); // the timeline failed before the operator's end
        }
      }
      fleet.awaitWriters();
      if (refusing) {
        recover(); // a refusal lasts the writing time at the most
      }
      Map<String, List<UUID>> commitOrder = readCommitOrder(database);
      int committed = commitOrder.values().stream().mapToInt(List::size).sum();
      long drainDeadline = System.nanoTime() + scenario.drainTimeout().toNanos();
      while (System.nanoTime() < drainDeadline && !(receivedDistinct(consumer) >= committed - deleted(database)
          && waiting(database) == 0)) {
        fleet.supervise();
        pause(Duration.ofSeconds(1));
      }
      pause(Duration.ofSeconds(2)); // late arrivals after the last check, so they are counted as duplicates
      fleet.killRelays();
      List<UUID> received = receivedPatiently(consumer);
      long abortedCopies = consumer.abortedCopies();
      ChaosReport.Delivery delivery = ChaosReport.judge(commitOrder, fleet.rolledBack(), received);
      Map<String, Long> statuses = statuses(database);
      long[] aftermath = fleet.frozenAftermath();
      // PARKED: an entry an operator parked and never requeued waits as much as a pending one
      long stuck = statuses.getOrDefault("PENDING", 0L) + statuses.getOrDefault("FAILED", 0L)
          + statuses.getOrDefault("PARKED", 0L);
      Set<UUID> missing = new java.util.LinkedHashSet<>(delivery.missing());
      long quarantined = statuses.getOrDefault("QUARANTINED", 0L);
      ChaosReport.OperatorFigures operatorFigures = null;
      List<String> examples = new ArrayList<>(delivery.examples());
      if (operator != null) {
        ChaosOperator.Record record = operated[0];
        ChaosReport.Discards discards = ChaosReport.judgeDiscards(deletions(database), record.deleting(),
            consumer.arrivalTimes());
        missing.removeAll(discards.discarded()); // the operator's choice: accepted as missing, gaps in their keys
        examples.addAll(discards.examples());
        Set<UUID> lateCopiesOfParked = new HashSet<>(delivery.lateCopied());
        lateCopiesOfParked.retainAll(record.parked());
        operatorFigures = new ChaosReport.OperatorFigures(record.parked().size(), record.requeued(),
            discards.discarded().size(), discards.deliveredAfter(), discards.deliveredBefore(),
            discards.deletedBehindTheOperator(), record.actions(), record.failures(), lateCopiesOfParked.size());
        keepIds("operator-parked.txt", record.parked());
        keepIds("operator-discarded.txt", discards.discarded());
        keepIds("late-copied.txt", delivery.lateCopied());
        // the operator only parks: whatever a relay quarantined counts, even if the operator later requeued it
        quarantined = fleet.quarantinedByRelays(quarantinedIds(database)).size();
        examples.addAll(fleet.statementFailureExamples());
      }
      ChaosReport report = new ChaosReport(runLabel, delivery.committed(), fleet.rolledBack().size(),
          received.size(), missing.size(), markedDelivered(database, missing),
          delivery.rolledBackDelivered(), delivery.unknownDelivered(),
          delivery.orderViolations(), delivery.duplicates(), delivery.lateCopies(), stuck,
          quarantined, fleet.claimsLost(), aftermath[0], aftermath[1], fleet.kills,
          fleet.selfKills, fleet.crashes, abortedCopies, Duration.ofNanos(System.nanoTime() - started).toSeconds(),
          refusing ? fleet.refusingPaused() : -1, refusing ? refusingMaxAttempts(database) : -1,
          refusing ? fleet.refusingRefused() : -1,
          bouncer != null ? fleet.statementFailures() : -1, operatorFigures,
          oneCommitPerBatch ? fleet.combinedSteps() : -1);
      examples.forEach(example -> log("example: " + example));
      keepSummary(report.summary(), seed);
      return report;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      consumer.close();
    }
  }

  /**
   * Freezes relay 0, resumes it two leases later and looks at its first pass after that. A freeze that caught it
   * holding no claim proves nothing, so it is tried again a little later, up to {@value #FREEZE_ATTEMPTS} times: a
   * relay whose destination is paused (a Kafka producer still waiting for its transactional id, say) holds none, and
   * on a loaded machine that can last through several tries.
   */
  private void freezeCycle(Timeline timeline, Fleet fleet, int cycle) {
    Duration frozenFor = fleet.freezeRelayZero();
    timeline.after(frozenFor, "resume relay 0", () -> {
      long[] aftermath = fleet.resumeRelayZero();
      log("relay 0 resumed; its first pass: " + aftermath[0] + " completion(s) refused, " + aftermath[1]
          + " expired claim(s) dropped unsent");
      if (aftermath[0] + aftermath[1] == 0 && cycle < FREEZE_ATTEMPTS && timeline.elapsed().compareTo(
          scenario.writeFor()) < 0) { // once the writers stopped, relay 0 soon holds nothing a freeze could catch
        timeline.after(Duration.ofSeconds(2), "freeze relay 0 again", () -> freezeCycle(timeline, fleet, cycle + 1));
      }
    });
  }

  private static ChaosDatabase startDatabaseAfterLeftovers(
      BiFunction<ChildProcesses, Path, ChaosDatabase> startDatabase, ChildProcesses processes, Path databases) {
    ChaosDatabase.stopLeftovers(databases, processes);
    return startDatabase.apply(processes, databases);
  }

  /** PgBouncer's server connections: fewer than the relays' pools together (3 relays × 6), so clients share them. */
  private static final int SERVER_POOL_BEHIND_PGBOUNCER = 4;

  /** @return the ordering keys the writers of the consumer's destination write ({@code WriterMain#pickKey}) */
  private List<String> mainKeys() {
    List<String> keys = new ArrayList<>();
    for (int k = 0; k < scenario.hotKeys(); k++) {
      keys.add("hot-" + k);
    }
    for (int k = 0; k < scenario.keys(); k++) {
      keys.add("key-" + k);
    }
    return keys;
  }

  /**
   * @param slf4jProvider the SLF4J provider the child logs through (both {@code slf4j-nop} and, for the relay app,
   *     Logback are on the class path; SLF4J takes the one named, without a warning)
   * @return the options of a child JVM: a small heap, the serial collector, quick start-up
   */
  static List<String> childJvm(String slf4jProvider) {
    return List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
        "-Dslf4j.provider=" + slf4jProvider, "-Dslf4j.internal.verbosity=WARN");
  }

  private void prepare(ChaosDatabase database) {
    prepareOutbox(database, production);
  }

  /**
   * Creates the outbox tables ({@value #PREFIX} prefix) and the commit record in a database the suite started.
   *
   * @param recordDeletions whether every deleted outbox row is recorded too (an operator's run)
   */
  static void prepareOutbox(ChaosDatabase database, boolean recordDeletions) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.jdbcUrl());
    config.setMaximumPoolSize(2);
    try (HikariDataSource pool = new HikariDataSource(config); Connection connection = pool.getConnection()) {
      JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build().migrate();
      database.commitRecord().create(connection);
      if (recordDeletions) {
        ChaosOperator.recordDeletions(connection, PREFIX);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prepare " + database, e);
    }
  }

  /** @return the outbox tables' prefix in every database of the suite */
  static String tablePrefix() {
    return PREFIX;
  }

  static Map<String, List<UUID>> readCommitOrder(ChaosDatabase database) {
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl())) {
      return database.commitRecord().order(connection);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Logs a run's summary line and appends it, with the time and seed, to {@code target/chaos/summaries.txt}. */
  static void keepSummary(String summary, long seed) throws IOException {
    log(summary);
    Files.writeString(Path.of("target", "chaos", "summaries.txt"), Instant.now() + " seed=" + seed + " " + summary
        + System.lineSeparator(), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** Writes ids into a file of the run's directory, one a line, for looking into a run afterwards. */
  private void keepIds(String file, Set<UUID> ids) throws IOException {
    Files.createDirectories(directory);
    Files.write(directory.resolve(file), ids.stream().map(UUID::toString).toList(), StandardCharsets.UTF_8);
  }

  /** Ends the refusal of the refusing destination (deletes its flag file), if it still refuses. */
  private void recover() {
    try {
      Files.deleteIfExists(refuseFlag);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** @return every outbox row deleted so far, with its deletion time (a run with an operator records them) */
  private static Map<UUID, Instant> deletions(ChaosDatabase database) {
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl())) {
      return ChaosOperator.deletions(connection);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** @return how many outbox rows were deleted so far; 0 where none are recorded, -1 if the database cannot say */
  private long deleted(ChaosDatabase database) {
    if (!production) {
      return 0;
    }
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(DISTINCT id) FROM chaos_deleted")) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      return 0;
    }
  }

  /** @return the ids of the entries quarantined now */
  private static Set<UUID> quarantinedIds(ChaosDatabase database) {
    Set<UUID> ids = new HashSet<>();
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT id FROM " + TableNames.withPrefix(PREFIX).qualified("outbox")
            + " WHERE status = 'QUARANTINED'")) {
      while (rows.next()) {
        ids.add(UUID.fromString(rows.getString(1)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return ids;
  }

  /** @return the most attempts charged to an entry of the refusing destination */
  private static long refusingMaxAttempts(ChaosDatabase database) {
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COALESCE(MAX(attempts), 0) FROM "
            + TableNames.withPrefix(PREFIX).qualified("outbox") + " WHERE destination = '" + REFUSING_DESTINATION
            + "'")) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static Map<String, Long> statuses(ChaosDatabase database) {
    Map<String, Long> counts = new LinkedHashMap<>();
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT status, COUNT(*) FROM "
            + TableNames.withPrefix(PREFIX).qualified("outbox") + " GROUP BY status")) {
      while (rows.next()) {
        counts.put(rows.getString(1), rows.getLong(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return counts;
  }

  /** @return distinct messages received so far, or -1 if the consumer cannot say right now */
  private static int receivedDistinct(ChaosConsumer consumer) {
    try {
      return new HashSet<>(consumer.received()).size();
    } catch (RuntimeException e) {
      log("cannot read what the consumer received (retrying): " + e.getMessage());
      return -1;
    }
  }

  /** @return what the consumer received, retrying (bounded) while it cannot answer (a busy shared server) */
  static List<UUID> receivedPatiently(ChaosConsumer consumer) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < 30; attempt++) {
      try {
        return consumer.received();
      } catch (RuntimeException e) {
        last = e;
        pause(Duration.ofSeconds(1));
      }
    }
    throw last;
  }

  /** @return how many of these messages the outbox records as delivered */
  static long markedDelivered(ChaosDatabase database, Set<UUID> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    long count = 0;
    try (Connection connection = DriverManager.getConnection(database.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT id FROM " + TableNames.withPrefix(PREFIX).qualified("outbox")
            + " WHERE status = 'DELIVERED'")) {
      while (rows.next()) {
        if (ids.contains(UUID.fromString(rows.getString(1)))) {
          count++;
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return count;
  }

  /**
   * The arguments of a {@link WriterMain} writing to a database of the suite.
   *
   * @param name the writer's name, in its payloads
   * @param database where it writes (tables of prefix {@value #PREFIX})
   * @param destination the destination of its messages
   * @param writing how it writes
   * @param seed fixes its keys and pauses
   * @return the arguments, to adjust before {@link #startWriter}
   */
  static Map<String, Object> writerArguments(String name, ChaosDatabase database, String destination,
      ChaosScenario.Writing writing, long seed) {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("name", name);
    args.put("url", database.jdbcUrl());
    args.put("prefix", PREFIX);
    args.put("commitRecord", database.commitRecord().name());
    args.put("destination", destination);
    args.put("threads", writing.threadsPerWriter());
    args.put("duration", writing.writeFor());
    args.put("maxPause", writing.maxPause());
    args.put("rollbackShare", writing.rollbackShare());
    args.put("keys", writing.keys());
    args.put("hot", writing.hotKeys());
    args.put("hotShare", writing.hotShare());
    args.put("seed", seed);
    return args;
  }

  /** Starts a writer process ({@link WriterMain}) with these arguments; its log is {@code <child>.log}. */
  static ChildProcesses.Child startWriter(ChildProcesses processes, String child, Map<String, Object> arguments) {
    return processes.startJvm(child, WriterMain.class, CHILD_JVM, ChildArguments.of(arguments));
  }

  /** @return the ids the writers rolled back ({@code ROLLED_BACK} lines of their logs) */
  static Set<UUID> rolledBack(List<ChildProcesses.Child> writers) {
    Set<UUID> ids = new HashSet<>();
    for (ChildProcesses.Child writer : writers) {
      for (String line : lines(writer.log())) {
        if (line.startsWith("ROLLED_BACK ")) {
          ids.add(UUID.fromString(line.substring("ROLLED_BACK ".length()).trim()));
        }
      }
    }
    return ids;
  }

  /** @return whether the process is stopped (SIGSTOP): state {@code T} in {@code /proc/<pid>/stat} */
  private static boolean isStopped(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  static long waiting(ChaosDatabase database) {
    try {
      Map<String, Long> counts = statuses(database);
      return counts.getOrDefault("PENDING", 0L) + counts.getOrDefault("FAILED", 0L);
    } catch (IllegalStateException e) {
      return -1;
    }
  }

  static void pause(Duration duration) {
    try {
      Thread.sleep(duration.toMillis()); // pacing the orchestrator's timeline, not waiting for a condition
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void log(String line) {
    System.out.println("[chaos " + Instant.now() + "] " + line);
  }

  static List<String> lines(Path log) {
    if (!Files.exists(log)) {
      return List.of();
    }
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines.toList();
    } catch (IOException | UncheckedIOException e) {
      return List.of();
    }
  }

  /** The fault timeline: actions at offsets from its start, played in order on the calling thread. */
  static final class Timeline {
    private record Event(long atMillis, long order, String name, Runnable action) {}

    private final PriorityQueue<Event> events = new PriorityQueue<>(
        (a, b) -> a.atMillis != b.atMillis ? Long.compare(a.atMillis, b.atMillis) : Long.compare(a.order, b.order));
    private final long start = System.nanoTime();
    private long added;

    void at(Duration offset, String name, Runnable action) {
      events.add(new Event(offset.toMillis(), added++, name, action));
    }

    /** @return the time since the timeline started */
    Duration elapsed() {
      return Duration.ofNanos(System.nanoTime() - start);
    }

    void after(Duration delay, String name, Runnable action) {
      at(Duration.ofNanos(System.nanoTime() - start).plus(delay), name, action);
    }

    /** Plays every event at its time, calling {@code between} about every half second while waiting. */
    void play(Runnable between) {
      while (!events.isEmpty()) {
        Event next = events.peek();
        long now = Duration.ofNanos(System.nanoTime() - start).toMillis();
        if (now < next.atMillis) {
          between.run();
          pause(Duration.ofMillis(Math.min(500, next.atMillis - now)));
          continue;
        }
        events.poll();
        log("t=" + now + "ms " + next.name);
        next.action.run();
      }
    }
  }

  /** The writer and relay processes, and what they printed. */
  private final class Fleet {
    private final ChildProcesses processes;
    private final ChaosDatabase database;
    /** Where the relays connect: the database, or a pooler in front of it. */
    private final String relayUrl;
    private final ChaosConsumer consumer;
    private final TcpProxy proxy;
    private final List<ChildProcesses.Child> writers = new ArrayList<>();
    private final ChildProcesses.Child[] relays;
    private final int[] incarnations;
    private final List<Path> relayLogs = new ArrayList<>();
    private ChildProcesses.Child frozen;
    private Path frozenLog;
    private long frozenRefused;
    private long frozenUnsent;
    private long protectRelayZeroUntil;
    private int kills;
    private int selfKills;
    private int crashes;

    private final Path freezeFlag = directory.resolve("freeze-relay-0.flag").toAbsolutePath();
    private final Path selfKillFlag = directory.resolve("self-kill.flag").toAbsolutePath();
    private final Path refuseFlag = ChaosRun.this.refuseFlag;

    Fleet(ChildProcesses processes, ChaosDatabase database, String relayUrl, ChaosConsumer consumer, TcpProxy proxy) {
      this.processes = processes;
      this.database = database;
      this.relayUrl = relayUrl;
      this.consumer = consumer;
      this.proxy = proxy;
      this.relays = new ChildProcesses.Child[scenario.relays()];
      this.incarnations = new int[scenario.relays()];
    }

    void startWriters() {
      for (int w = 0; w < scenario.writers(); w++) {
        writers.add(startWriter(processes, "writer-" + w, writerArguments("w" + w, database, consumer.destination(),
            scenario.writing(), seed + w)));
      }
      if (refusing) {
        Map<String, Object> args = writerArguments("w-refusing", database, REFUSING_DESTINATION, scenario.writing(),
            seed + 1_000);
        args.put("keyPrefix", refusal.oneKey() ? "one-" : "refusing-");
        if (refusal.oneKey()) {
          args.put("threads", 1);
          args.put("maxPause", Duration.ofMillis(200));
          args.put("keys", 1);
          args.put("hot", 1);
          args.put("hotShare", 0.0);
        }
        writers.add(startWriter(processes, "writer-refusing", args));
      }
    }

    void startRelays() {
      for (int r = 0; r < relays.length; r++) {
        startRelay(r);
      }
    }

    private void startRelay(int r) {
      Map<String, Object> args = new LinkedHashMap<>();
      args.put("name", "relay-" + r + "-" + incarnations[r]);
      args.put("url", relayUrl);
      args.put("prefix", PREFIX);
      args.put("transport", consumer.transport());
      args.put("claims", claims != null ? claims
          : r % 2 == 0 ? ClaimStrategy.LEASED_BATCHES : ClaimStrategy.LEASED_ROWS);
      args.put("lease", scenario.lease());
      args.put("deliveryTimeout", scenario.deliveryTimeout());
      args.put("retryBase", scenario.retryBase());
      args.put("retryCap", scenario.retryCap());
      args.put("maxAttempts", scenario.maxAttempts());
      args.put("giveUpAfter", scenario.giveUpAfter());
      if (oneCommitPerBatch) {
        // Two workers take the step whatever the transport (one worker claims ahead instead while answers are awaited),
        // and batches of 10 are full often at the writers' rate: the step is taken on every full batch.
        args.put("oneCommitPerBatch", true);
        args.put("workers", 2);
        args.put("batchSize", 10);
      }
      List<String> arguments = new ArrayList<>(ChildArguments.of(args));
      arguments.addAll(consumer.relayArguments(proxy.port()));
      if (r == 0) {
        arguments.add("freezeFlag=" + freezeFlag);
      }
      if (scenario.selfKills() > 0) {
        arguments.add("selfKillFlag=" + selfKillFlag);
      }
      if (refusing) {
        arguments.add("refuseFlag=" + refuseFlag);
        arguments.add("refuseDestination=" + REFUSING_DESTINATION);
        arguments.add("outageBase=1000");
        arguments.add("outageCap=5000");
      }
      String name = "relay-" + r + "-" + incarnations[r]++;
      relays[r] = processes.startJvm(name, RelayMain.class, CHILD_JVM, arguments);
      relayLogs.add(relays[r].log());
    }

    /** The next relay to see a confirmation SIGKILLs itself ({@link SelfKillingTransport}). */
    void armSelfKill() {
      try {
        if (Files.exists(selfKillFlag)) {
          log("the last self-kill armed was not taken yet (no confirmation since)");
        }
        Files.writeString(selfKillFlag, "the next relay to see a confirmation kills itself and deletes this file");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void disarmSelfKill() {
      try {
        Files.deleteIfExists(selfKillFlag);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    void killRandomRelay(Random random) {
      supervise(); // a relay that killed itself is counted and restarted as such, not killed again
      List<Integer> candidates = new ArrayList<>();
      for (int r = 0; r < relays.length; r++) {
        if (relays[r] != null && !(r == 0 && System.nanoTime() < protectRelayZeroUntil)) {
          candidates.add(r);
        }
      }
      if (candidates.isEmpty()) {
        return;
      }
      int r = candidates.get(random.nextInt(candidates.size()));
      relays[r].kill();
      kills++;
      startRelay(r);
    }

    /**
     * Freezes relay 0 between a broker's confirmation and the store's record of it, and returns how long it must stay
     * frozen: two of its leases and a second. The relay stops itself there when a flag file appears
     * ({@link SelfFreezingTransport}); if it confirms nothing within 20 seconds, it is stopped wherever it is.
     */
    Duration freezeRelayZero() {
      frozen = relays[0];
      frozenLog = frozen.log();
      protectRelayZeroUntil = System.nanoTime() + Duration.ofMinutes(2).toNanos(); // set again once frozen
      try {
        Files.writeString(freezeFlag, "freeze");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (System.nanoTime() < deadline && !isStopped(frozen.pid())) {
        pause(Duration.ofMillis(50));
      }
      if (isStopped(frozen.pid())) {
        log("relay 0 stopped itself after a confirmed delivery");
      } else {
        try {
          Files.deleteIfExists(freezeFlag);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        log("relay 0 confirmed nothing within 20 s; its threads: " + frozen.threadDump() + "; stopped where it was");
        frozen.freeze();
      }
      // Read now, not before the freeze: a relay restarted moments ago (its Kafka producer still starting) has not
      // printed its lease yet, and the scenario's shorter lease would resume it before its claims expired.
      Duration lease = lines(frozenLog).stream().filter(line -> line.startsWith("RELAY_STARTED"))
          .map(line -> line.replaceAll(".* lease=(\\d+).*", "$1")).map(Long::parseLong).map(Duration::ofMillis)
          .findFirst().orElse(scenario.lease());
      Duration frozenFor = lease.multipliedBy(2).plusSeconds(1);
      log("relay 0 stays frozen for " + frozenFor + " (two of its leases of " + lease + " and a second)");
      protectRelayZeroUntil = System.nanoTime() + frozenFor.plusSeconds(40).toNanos();
      return frozenFor;
    }

    /** The relay's warning for an atomic batch left in doubt; group 1 is how many entries. */
    private static final java.util.regex.Pattern IN_DOUBT_LINE =
        java.util.regex.Pattern.compile("(\\d+) entries left claimed: their batch's outcome is unknown");

    /**
     * Resumes relay 0 and waits (bounded) for its first pass after that.
     *
     * @return that pass's completions refused by the store (claims lost), and expired claims dropped unsent or left in
     *     doubt
     */
    long[] resumeRelayZero() {
      int before = lines(frozenLog).size();
      frozen.resume();
      long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
      long[] aftermath = {0, 0};
      while (System.nanoTime() < deadline) {
        List<String> all = lines(frozenLog);
        String batch = all.subList(Math.min(before, all.size()), all.size()).stream()
            .filter(line -> line.startsWith("BATCH ")).findFirst().orElse(null);
        if (batch != null) {
          // An atomic batch whose outcome came after its deadline is left in doubt: its relay records nothing and says
          // so ("N entries left claimed: their batch's outcome is unknown"); those claims count as left unsent here.
          long leftInDoubt = all.subList(Math.min(before, all.size()), all.size()).stream()
              .map(IN_DOUBT_LINE::matcher).filter(java.util.regex.Matcher::find)
              .mapToLong(m -> Long.parseLong(m.group(1))).sum();
          aftermath = new long[] {field(batch, "claimsLost"),
              Math.max(0, field(batch, "claimed") - field(batch, "attempted") - field(batch, "postponed"))
                  + leftInDoubt};
          break;
        }
        pause(Duration.ofMillis(200));
      }
      frozenRefused += aftermath[0];
      frozenUnsent += aftermath[1];
      return aftermath;
    }

    /** @return the frozen relay's completions refused and expired claims dropped unsent, over every freeze */
    long[] frozenAftermath() {
      return new long[] {frozenRefused, frozenUnsent};
    }

    private long field(String line, String name) {
      java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("\\b" + name + "=(\\d+)").matcher(line);
      return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    /**
     * Restarts a relay that ended on its own, and counts it: a self-kill when its log says it killed itself after a
     * confirmation ({@link SelfKillingTransport}), a crash otherwise (the suite only ever kills).
     */
    void supervise() {
      for (int r = 0; r < relays.length; r++) {
        if (relays[r] != null && !relays[r].isAlive()) {
          if (lines(relays[r].log()).stream().anyMatch(line -> line.startsWith("KILLING_SELF"))) {
            selfKills++;
          } else {
            crashes++;
            log("relay " + relays[r] + " ended on its own; see " + relays[r].log());
          }
          startRelay(r);
        }
      }
    }

    void awaitWriters() {
      for (ChildProcesses.Child writer : writers) {
        int exit = writer.awaitExit(scenario.writeFor().plusMinutes(2));
        if (exit != 0) {
          throw new IllegalStateException("writer " + writer + " exited with " + exit + ", see " + writer.log());
        }
      }
    }

    void killRelays() {
      for (ChildProcesses.Child relay : relays) {
        if (relay != null) {
          relay.kill();
        }
      }
    }

    Set<UUID> rolledBack() {
      return ChaosRun.rolledBack(writers);
    }

    long claimsLost() {
      return relayLogs.stream().mapToLong(this::claimsLostIn).sum();
    }

    /** @return how many deliveries to the refusing destination the relays refused ({@code REFUSED} lines) */
    long refusingRefused() {
      return linesStartingWith("REFUSED " + REFUSING_DESTINATION + " ");
    }

    /** @return how often the relays (every incarnation) paused the refusing destination */
    long refusingPaused() {
      return linesStartingWith("DESTINATION_PAUSED " + REFUSING_DESTINATION + " ");
    }

    /** @return the steps that retired a batch in the next claim's transaction ({@code COMBINED_STEP} lines) */
    long combinedSteps() {
      return linesStartingWith("COMBINED_STEP ");
    }

    /** @return the relays' prepared-statement failures ({@code STATEMENT_FAILURE} lines, every incarnation) */
    long statementFailures() {
      return linesStartingWith("STATEMENT_FAILURE ");
    }

    /** @return the first few distinct prepared-statement failures, for the run's examples */
    List<String> statementFailureExamples() {
      return relayLogs.stream().flatMap(log -> lines(log).stream())
          .filter(line -> line.startsWith("STATEMENT_FAILURE ")).map(line -> line.replaceAll("S_\\d+", "S_n"))
          .distinct().limit(5).toList();
    }

    /**
     * @param quarantinedNow the entries quarantined in the outbox now
     * @return those, and every entry a relay reported quarantining ({@code QUARANTINED} lines, every incarnation)
     */
    Set<UUID> quarantinedByRelays(Set<UUID> quarantinedNow) {
      Set<UUID> ids = new HashSet<>(quarantinedNow);
      relayLogs.forEach(log -> lines(log).stream().filter(line -> line.startsWith("QUARANTINED "))
          .map(line -> line.split(" ")[1]).forEach(id -> ids.add(UUID.fromString(id))));
      return ids;
    }

    /** @return the lines of every relay log (every incarnation) that start with {@code prefix} */
    private long linesStartingWith(String prefix) {
      return relayLogs.stream().mapToLong(log -> lines(log).stream().filter(line -> line.startsWith(prefix)).count())
          .sum();
    }

    private long claimsLostIn(Path log) {
      return lines(log).stream().filter(line -> line.startsWith("CLAIM_LOST")).count();
    }
  }
}
