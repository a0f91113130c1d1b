package dev.outbox4j.chaos;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outbox4j.jdbc.ClaimStrategy;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The chaos suite: separate writer and relay JVMs over a database the suite starts and crashes itself, relays
 * SIGKILLed and restarted, one frozen past its lease, the destination cut off for longer than the retry budget, a
 * backlog on hot keys. The default build runs the short form on PostgreSQL over RabbitMQ, on MariaDB over the
 * in-process transport (a consumer ledger), on PostgreSQL with relays of both claim strategies over the in-process
 * transport, on PostgreSQL over the in-process transport with a second destination refusing everything until the
 * writers stop, and on PostgreSQL with production's settings (asynchronous commit, REPEATABLE READ by default, the
 * relays through PgBouncer, an operator at work, a one-key destination refusing for 20 s); and on PostgreSQL into Kafka, exactly once, through kills after commits (once the Kafka transport
 * has its transactional mode); and two PostgreSQL outboxes drained by the runnable relay's processes, one of the two
 * databases crash-restarted again and again;
 * {@code -Pchaos-long} runs the long form on every pair. See docs/reliability.md.
 */
class ChaosSuiteTest {
  /**
   * Checks the short form leaves to the long form, per run, until the fix of a known defect is merged (each with the
   * defect); the summary line still reports them. Empty when every fix has landed.
   */
  private static final Map<String, Map<String, String>> DEFERRED_IN_SHORT_FORM = Map.of();

  private static final long SEED = Long.getLong("outbox4j.chaos.seed", 20261201L);

  @Test
  void postgresql_over_rabbitmq_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromise("postgresql-rabbitmq", true, ClaimStrategy.LEASED_BATCHES, new ChaosConsumer.Rabbit());
  }

  @Test
  void mariadb_over_the_in_process_transport_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromise("mariadb-ledger", false, ClaimStrategy.LEASED_ROWS, new ChaosConsumer.Ledger());
  }

  /**
   * A rolling switch between the two claim strategies: every other relay claims with leased rows, the others with
   * leased batches (PostgreSQL's default), through every fault of the run. Each skips what the other holds and fences
   * the other's completions once it has taken an entry over (the frozen relay's among them). The database's crash is
   * a failover: the primary stops at once and its synchronous streaming standby is promoted.
   */
  @Test
  void postgresql_failing_over_with_relays_of_both_claim_strategies_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromise("postgresql-failover-rolling-switch-ledger", PostgresCluster::startWithAStandby, null,
        new ChaosConsumer.Ledger());
  }

  /**
   * A fault stays in its lane: beside the consumer's destination, a second one (a writer of its own, keys of its own)
   * refuses every delivery for the whole writing time, through every other fault of the run, and recovers when the
   * writers stop. The healthy destination loses, reorders and strands nothing; the refusing one is paused (never
   * charged into quarantine) and drains once it recovers. The database's crash here is a client backend SIGKILLed:
   * the postmaster ends every session and reinitialises, its start time unchanged.
   */
  @Test
  void postgresql_with_a_destination_refusing_everything_keeps_every_promise_for_the_others_and_drains_it_after() {
    ChaosScenario scenario = ChaosScenario.current();
    ChaosReport report = ChaosRun.runWithARefusingDestination("postgresql-refusing-ledger-" + scenario.form(),
        new ChaosRun.ScenarioAndDatabase(scenario, ClaimStrategy.LEASED_BATCHES, PostgresCluster::startKillingABackend),
        new ChaosConsumer.Ledger(), SEED);
    SoftAssertions soft = new SoftAssertions();
    judge(soft, report, scenario, Map.of());
    soft.assertThat(report.refusingPaused()).as("the refusing destination was paused").isPositive();
    soft.assertAll();
  }

  /**
   * One commit per batch ({@code JdbcOutboxStore.useOneCommitPerBatch(true)}, off by default): the relays retire a full
   * batch's last confirmations in the next claim's transaction, through every usual fault (relays SIGKILLed, relay 0
   * frozen past its lease, the database crash-restarted, the consumer cut off), over the in-process transport. Each
   * relay runs two workers (which take the step whatever the transport) with batches of 10 (full at the writers'
   * rate): on PostgreSQL with leased batches, and on MariaDB with leased rows. Nothing lost, invented, reordered or
   * stranded, and the steps were taken.
   */
  @Test
  void postgresql_with_one_commit_per_batch_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromiseInOneCommitPerBatch("postgresql-one-commit-ledger", PostgresCluster::start,
        ClaimStrategy.LEASED_BATCHES);
  }

  @Test
  void mariadb_with_one_commit_per_batch_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromiseInOneCommitPerBatch("mariadb-one-commit-ledger", MariaDbServer::start,
        ClaimStrategy.LEASED_ROWS);
  }

  private static void keepsEveryPromiseInOneCommitPerBatch(String label,
      java.util.function.BiFunction<ChildProcesses, java.nio.file.Path, ChaosDatabase> database,
      ClaimStrategy claims) {
    ChaosScenario scenario = ChaosScenario.current();
    ChaosReport report = ChaosRun.runWithOneCommitPerBatch(label + "-" + scenario.form(),
        new ChaosRun.ScenarioAndDatabase(scenario, claims, database), new ChaosConsumer.Ledger(), SEED);
    SoftAssertions soft = new SoftAssertions();
    judge(soft, report, scenario, Map.of());
    // a precondition: relays that never took the step would prove nothing about it
    soft.assertThat(report.combinedSteps()).as("batches retired in the next claim's transaction").isPositive();
    soft.assertAll();
  }

  /**
   * Production's settings, on top of every usual fault (relays SIGKILLed, relay 0 frozen past its lease, the
   * database crash-restarted, the destination cut off): PostgreSQL with {@code synchronous_commit = off} and
   * REPEATABLE READ as the database's default; the relays through PgBouncer 1.18 in transaction mode with pgjdbc's
   * default settings (no {@code prepareThreshold=0}); an operator parking, requeuing and discarding entries of the
   * consumer's destination while the relays drain it, directly on the database; and a destination fed by one key that
   * refuses everything for 20 s while the writers write. Nothing lost but what the operator discarded, no discarded
   * message delivered after its discard, nothing invented, each key in order with the discarded ones as gaps, nothing
   * stuck, nothing quarantined (the operator only parks, and requeues what it parked), the one-key destination paused
   * rather than charged, and no claim or completion failing on a prepared statement.
   */
  @Test
  void postgresql_with_production_settings_through_pgbouncer_with_an_operator_keeps_every_promise() {
    ChaosScenario scenario = ChaosScenario.current();
    ChaosReport report = ChaosRun.runWithProductionSettings("postgresql-production-settings-" + scenario.form(),
        scenario, new ChaosConsumer.Ledger(), SEED);
    ChaosReport.OperatorFigures operator = report.operator();
    SoftAssertions soft = new SoftAssertions();
    judge(soft, report, scenario, Map.of());
    soft.assertThat(operator.deliveredAfterDiscard())
        .as("delivered after discard: discarded messages that arrived after the operator's discard").isZero();
    soft.assertThat(report.statementFailures())
        .as("claims and completions failing on a prepared statement behind PgBouncer").isZero();
    if (report.refusingRefused() < scenario.maxAttempts() && !ChaosScenario.isLong()) {
      // A precondition, not a promise: on a loaded machine (the database's restart took 10 s in such runs) the relays
      // may try the one key's head fewer times within the 20 s than a retry budget holds, and nothing then shows an
      // outage. Its entries must still never be quarantined, which is asserted above.
      System.out.println("[chaos] one-key destination refused=" + report.refusingRefused() + " < "
          + scenario.maxAttempts() + " attempts: its outage was barely tried (precondition not reached; its pausing "
          + "reported, not asserted in the short form)");
    } else {
      soft.assertThat(report.refusingPaused()).as("the one-key destination refusing for 20 s (refused %d times) was "
          + "paused", report.refusingRefused()).isPositive();
    }
    // preconditions: an operator that did nothing would prove nothing
    soft.assertThat(operator.parked()).as("entries the operator parked").isPositive();
    soft.assertThat(operator.discarded()).as("entries the operator discarded").isPositive();
    soft.assertThat(operator.requeued()).as("entries the operator requeued").isPositive();
    soft.assertAll();
  }

  /**
   * Exactly once into Kafka: each relay batch one Kafka transaction, retired only after its commit, entries in doubt
   * looked up in the progress topic before they are sent again. On top of the usual faults (the database
   * crash-restarted, relay 0 frozen past its lease after a commit, the broker cut off for longer than the retry
   * budget), relays are SIGKILLed at random and kill themselves right after a commit, before the outbox hears of it:
   * 15 + 15 kills in the short form, 160 + 80 in the long. Judged by a {@code read_committed} consumer: nothing lost,
   * no copy, no reordering, nothing stranded; the copies of aborted transactions (seen {@code read_uncommitted}) are
   * reported.
   *
   * <p>Skipped while {@code KafkaTransport} has no transactional mode. With
   * {@code -Doutbox4j.chaos.kafka.atLeastOnce=true} it then runs over the plain (idempotent, at-least-once) transport,
   * where the judge must find duplicates: the check that it can fail.
   */
  @Test
  void postgresql_into_kafka_exactly_once_loses_duplicates_reorders_and_strands_nothing() {
    boolean transactional = ChaosConsumer.Kafka.transactionsSupported();
    boolean atLeastOnce = Boolean.getBoolean("outbox4j.chaos.kafka.atLeastOnce");
    assumeTrue(transactional || atLeastOnce, "KafkaTransport has no transactional mode (transactions.enabled) yet; "
        + "-Doutbox4j.chaos.kafka.atLeastOnce=true runs the scenario over the plain transport, expecting duplicates");
    ChaosScenario scenario = ChaosScenario.currentKafka();
    ChaosReport report = ChaosRun.run("postgresql-kafka-" + (transactional ? "exactly-once" : "at-least-once") + "-"
        + scenario.form(), scenario, ClaimStrategy.LEASED_BATCHES, PostgresCluster::start,
        new ChaosConsumer.Kafka(transactional), SEED);
    SoftAssertions soft = new SoftAssertions();
    // A relay frozen right after a commit and resumed past its lease finds its batch's deadline gone: the batch is in
    // doubt, nothing is recorded, and the relay that took its entries over found the commit in the progress topic.
    judge(soft, report, scenario, Map.of(), transactional);
    // an armed self-kill waits for the next commit; two armed before one (in the outage, a freeze) make one
    soft.assertThat(report.selfKills()).as("relays that killed themselves after a commit, of %d armed",
        scenario.selfKills()).isPositive();
    if (transactional) {
      soft.assertThat(report.duplicates()).as("copies read committed").isZero();
    } else {
      soft.assertThat(report.duplicates()).as("copies over the at-least-once transport, which the judge must see")
          .isPositive();
    }
    soft.assertAll();
  }

  /**
   * A fault stays in its outbox's lane: two PostgreSQL clusters, an outbox in each, relay processes of the runnable
   * relay (2, long form 3) each draining both through its configuration's {@code outboxes:} into RabbitMQ, a writer
   * per outbox writing throughout. One cluster is stopped at once ({@code pg_ctl stop -m immediate}) and started again
   * (2 outages of 6 s, long form 3 of 10 s), relays are SIGKILLed and restarted between them (1, long form 4). Each
   * outbox loses, invents, reorders and strands nothing; the steady outbox keeps at least half its delivery rate
   * during every outage of the other; and during each outage every relay's readiness names the crashing outbox
   * {@code DOWN} while the process keeps serving.
   */
  @Test
  void two_outboxes_in_one_relay_one_database_crash_restarted_the_other_keeps_every_promise_and_its_rate() {
    TwoOutboxesScenario scenario = TwoOutboxesScenario.current();
    TwoOutboxesReport report = TwoOutboxesRun.run("postgresql-two-outboxes-" + scenario.form(), scenario, SEED);
    SoftAssertions soft = new SoftAssertions();
    judgeDelivery(soft, report.steady(), Map.of());
    judgeDelivery(soft, report.crashing(), Map.of());
    soft.assertThat(report.rateBefore()).as("the steady outbox's deliveries per second before the first outage")
        .isPositive();
    soft.assertThat(report.measuredRatios()).as("the steady outbox's rate in each outage of the other, over its rate "
        + "before").isNotEmpty().allSatisfy(ratio -> org.assertj.core.api.Assertions.assertThat(ratio)
            .isGreaterThanOrEqualTo(TwoOutboxesReport.LEAST_RATE_RATIO));
    if (report.measuredRatios().size() < report.outages().size()) {
      // A precondition, not a promise: on a loaded machine the waits before an outage (every relay ready) may push it
      // past the writing time, where the steady outbox has nothing left to deliver at its rate.
      System.out.println("[chaos] " + (report.outages().size() - report.measuredRatios().size()) + " outage(s) began "
          + "after the writers stopped: their rate not measured (precondition not reached; reported, not asserted)");
    }
    soft.assertThat(report.namedDown()).as("outages in which every relay's readiness named the crashing outbox DOWN "
        + "and kept serving").isEqualTo(scenario.crashesAt().size());
    soft.assertThat(report.relayCrashes()).as("relay processes that ended on their own").isZero();
    soft.assertThat(report.relayKills()).as("relay kills").isEqualTo(scenario.killsAt().size());
    soft.assertAll();
  }

  @Test
  void postgresql_over_the_in_process_transport_loses_invents_reorders_and_strands_nothing() {
    assumeTrue(ChaosScenario.isLong(), "long form only (-Pchaos-long)");
    keepsEveryPromise("postgresql-ledger", true, ClaimStrategy.LEASED_BATCHES, new ChaosConsumer.Ledger());
  }

  @Test
  void mariadb_over_rabbitmq_loses_invents_reorders_and_strands_nothing() {
    assumeTrue(ChaosScenario.isLong(), "long form only (-Pchaos-long)");
    keepsEveryPromise("mariadb-rabbitmq", false, ClaimStrategy.LEASED_ROWS, new ChaosConsumer.Rabbit());
  }

  private static void keepsEveryPromise(String label, boolean postgres, @Nullable ClaimStrategy claims,
      ChaosConsumer consumer) {
    keepsEveryPromise(label, postgres ? PostgresCluster::start : MariaDbServer::start, claims, consumer);
  }

  private static void keepsEveryPromise(String label,
      java.util.function.BiFunction<ChildProcesses, java.nio.file.Path, ChaosDatabase> database,
      @Nullable ClaimStrategy claims, ChaosConsumer consumer) {
    ChaosScenario scenario = ChaosScenario.current();
    ChaosReport report = ChaosRun.run(label + "-" + scenario.form(), scenario, claims, database, consumer, SEED);
    Map<String, String> deferred = scenario.form().equals("short") ? DEFERRED_IN_SHORT_FORM.getOrDefault(label,
        Map.of()) : Map.of();
    SoftAssertions soft = new SoftAssertions();
    judge(soft, report, scenario, deferred);
    soft.assertAll();
  }

  private static void judge(SoftAssertions soft, ChaosReport report, ChaosScenario scenario,
      Map<String, String> deferred) {
    judge(soft, report, scenario, deferred, false);
  }

  /**
   * @param inDoubtAfterAFreeze whether the frozen relay may, after its resume, record nothing at all for the batch it
   *     held (an atomic batch left in doubt) instead of having its completions refused
   */
  private static void judge(SoftAssertions soft, ChaosReport report, ChaosScenario scenario,
      Map<String, String> deferred, boolean inDoubtAfterAFreeze) {
    judgeDelivery(soft, report, deferred);
    long fenced = inDoubtAfterAFreeze ? report.frozenRefused() + report.frozenUnsent() : report.frozenRefused();
    String fencedMeans = inDoubtAfterAFreeze
        ? "the frozen relay's claims after its resume: completions refused, or left to their leases"
        : "the frozen relay's late completions, refused (claims lost)";
    if (fenced == 0 && !ChaosScenario.isLong()) {
      // A precondition, not a promise: the freeze must leave relay 0's claims to another relay, which on a loaded
      // machine (the others killed or paused at that moment) may not happen within any of the freezes tried. Every
      // promise above is still asserted; the long form, run on a machine of its own, asserts this one too.
      System.out.println("[chaos] frozenRelay refused=" + report.frozenRefused() + " unsent=" + report.frozenUnsent()
          + ": no freeze of relay 0 had its claims taken over (precondition not reached; reported, not asserted in "
          + "the short form)");
    } else {
      soft.assertThat(fenced).as(fencedMeans).isPositive();
    }
    soft.assertThat(report.relayKills()).as("relay kills").isEqualTo(scenario.relayKills());
  }

  /** The delivery promises: nothing lost, rolled back yet delivered, invented, reordered, late-copied, stranded. */
  private static void judgeDelivery(SoftAssertions soft, ChaosReport report, Map<String, String> deferred) {
    soft.assertThat(report.committed()).as("committed messages").isPositive();
    soft.assertThat(report.vanished()).as("lost although marked delivered").isZero();
    soft.assertThat(report.lost()).as("lost and not waiting in the outbox")
        .isLessThanOrEqualTo(report.stuck() + report.quarantined());
    check(soft, deferred, "lost", report.lost(), "lost: committed, never received");
    soft.assertThat(report.rolledBackDelivered()).as("rolled back, yet delivered").isZero();
    soft.assertThat(report.unknownDelivered()).as("delivered, never written").isZero();
    check(soft, deferred, "orderViolations", report.orderViolations(),
        "per-key order violations against commit order");
    check(soft, deferred, "lateCopies", report.lateCopies(),
        "late copies: a duplicate arriving after a later message of its key (SPEC: a late copy never overtakes)");
    check(soft, deferred, "stuck", report.stuck(), "stuck: still waiting after the drain time");
    check(soft, deferred, "quarantined", report.quarantined(), "quarantined");
  }

  private static void check(SoftAssertions soft, Map<String, String> deferred, String name, long value,
      String description) {
    if (deferred.containsKey(name)) {
      System.out.println("[chaos] " + name + "=" + value + " not asserted in the short form: " + deferred.get(name));
      return;
    }
    soft.assertThat(value).as(description).isZero();
  }
}
