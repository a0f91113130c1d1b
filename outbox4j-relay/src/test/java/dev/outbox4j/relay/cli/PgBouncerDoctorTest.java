package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.PgBouncerProcess;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor} through PgBouncer in transaction mode (Debian's {@code pgbouncer}, started here on a free port with a
 * configuration of this test's own, one server connection): it sees the transaction pooler, and names the driver's
 * default server-side prepared statements through it as INFO (the store sends its own statements unnamed, so nothing
 * of the outbox is unsafe); with {@code prepareThreshold=0} that line goes.
 */
class PgBouncerDoctorTest {
  private static final String PREFIX = "docbouncer_";

  @TempDir static Path directory;

  private static PgBouncerProcess bouncer;

  @BeforeAll
  static void startPgBouncer() {
    try (var pool = DoctorContract.pool(RunDatabases.postgresUrl())) {
      JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build().migrate();
    }
    bouncer = PgBouncerProcess.start(directory, 2);
  }

  @AfterAll
  static void stopPgBouncer() {
    if (bouncer != null) {
      bouncer.close();
    }
  }

  private static CliRun doctor(String parameters) {
    return CliRun.of("doctor", "--url", bouncer.url() + parameters, "--table-prefix", PREFIX);
  }

  @Test
  void the_transaction_pooler_is_seen_and_the_drivers_default_prepared_statements_through_it_are_named_but_safe() {
    CliRun run = doctor("");

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("INFO    pooler", "a transaction pooler is in front (the relay connects to port "
        + bouncer.port() + ", the server listens", "prepareThreshold=5", "fix: prepareThreshold=0")
        .doesNotContain("UNSAFE  pooler");
  }

  @Test
  void with_prepare_threshold_0_the_pooler_is_informational_only() {
    CliRun run = doctor("&prepareThreshold=0");

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("INFO    pooler", "a transaction pooler is in front").doesNotContain("UNSAFE  pooler",
        "prepareThreshold=5");
  }
}
