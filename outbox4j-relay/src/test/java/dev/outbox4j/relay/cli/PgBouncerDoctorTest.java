package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.PgBouncerProcess;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor} through PgBouncer in transaction mode (Debian's {@code pgbouncer}, started here on a free port with a
 * configuration of this test's own, one server connection): it sees the transaction pooler, and names the driver's
 * default server-side prepared statements through it as INFO (the store sends its own statements unnamed, so nothing
 * of the outbox is unsafe); with {@code prepareThreshold=0} that line goes. A store told to let the driver prepare its
 * statements ({@code database.prepared-statements: true}) is unsafe through it, and said so.
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
    return doctor(parameters, Map.of());
  }

  private static CliRun doctor(String parameters, Map<String, String> environment) {
    return CliRun.of(environment, "doctor", "--url", bouncer.url() + parameters, "--table-prefix", PREFIX);
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

  @Test
  void a_store_preparing_its_statements_through_the_transaction_pooler_is_unsafe() {
    CliRun run = doctor("", Map.of("OUTBOX4J_DATABASE_PREPARED_STATEMENTS", "true"));

    assertThat(run.code()).as(run.out() + run.err()).isEqualTo(1);
    assertThat(run.out()).contains("UNSAFE  pooler", "the store lets the driver prepare its statements",
        "prepareThreshold=5", "database.prepared-statements: false");
  }

  @Test
  void a_store_preparing_its_statements_with_prepare_threshold_0_is_not_unsafe() {
    CliRun run = doctor("&prepareThreshold=0", Map.of("OUTBOX4J_DATABASE_PREPARED_STATEMENTS", "true"));

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).doesNotContain("UNSAFE  pooler");
  }
}
