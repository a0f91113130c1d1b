package dev.outbox4j.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The chaos suite: separate writer and relay JVMs over a database the suite starts and crashes itself, relays
 * SIGKILLed and restarted, one frozen past its lease, the destination cut off for longer than the retry budget, a
 * backlog on hot keys. The default build runs the short form on PostgreSQL over RabbitMQ and on MariaDB over the
 * in-process transport (a consumer ledger); {@code -Pchaos-long} runs the long form on every pair. See
 * docs/reliability.md.
 */
class ChaosSuiteTest {
  private static final long SEED = Long.getLong("outbox4j.chaos.seed", 20261201L);

  @Test
  void postgresql_over_rabbitmq_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromise("postgresql-rabbitmq", true, new ChaosConsumer.Rabbit());
  }

  @Test
  void mariadb_over_the_in_process_transport_loses_invents_reorders_and_strands_nothing() {
    keepsEveryPromise("mariadb-ledger", false, new ChaosConsumer.Ledger());
  }

  @Test
  void postgresql_over_the_in_process_transport_loses_invents_reorders_and_strands_nothing() {
    assumeTrue(ChaosScenario.isLong(), "long form only (-Pchaos-long)");
    keepsEveryPromise("postgresql-ledger", true, new ChaosConsumer.Ledger());
  }

  @Test
  void mariadb_over_rabbitmq_loses_invents_reorders_and_strands_nothing() {
    assumeTrue(ChaosScenario.isLong(), "long form only (-Pchaos-long)");
    keepsEveryPromise("mariadb-rabbitmq", false, new ChaosConsumer.Rabbit());
  }

  private static void keepsEveryPromise(String label, boolean postgres, ChaosConsumer consumer) {
    ChaosScenario scenario = ChaosScenario.current();
    ChaosReport report = ChaosRun.run(label + "-" + scenario.form(), scenario,
        postgres ? PostgresCluster::start : MariaDbServer::start, consumer, SEED);
    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(report.committed()).as("committed messages").isPositive();
    soft.assertThat(report.lost()).as("lost: committed, never received").isZero();
    soft.assertThat(report.rolledBackDelivered()).as("rolled back, yet delivered").isZero();
    soft.assertThat(report.unknownDelivered()).as("delivered, never written").isZero();
    soft.assertThat(report.orderViolations()).as("per-key order violations against commit order").isZero();
    soft.assertThat(report.stuck()).as("stuck: still waiting after the drain time").isZero();
    soft.assertThat(report.quarantined()).as("quarantined").isZero();
    soft.assertThat(report.frozenRefused() + report.frozenUnsent())
        .as("the frozen relay's expired claims, refused by the store or dropped unsent after it resumed").isPositive();
    soft.assertThat(report.relayKills()).as("relay kills").isEqualTo(scenario.relayKills());
    soft.assertAll();
    assertThat(report.kept()).as(report.summary()).isTrue();
  }
}
