package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.testkit.ListeningPort;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  private static Process bouncer;
  private static int port;

  @BeforeAll
  static void startPgBouncer() throws Exception {
    try (var pool = DoctorContract.pool(RunDatabases.postgresUrl())) {
      JdbcOutboxStore.builder(pool).withTablePrefix(PREFIX).build().migrate();
    }
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Files.writeString(directory.resolve("pgbouncer.ini"), String.join("\n",
        "[databases]",
        RunDatabases.name() + " = host=127.0.0.1 port=5432 dbname=" + RunDatabases.name() + " user=postgres",
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        "listen_port = " + port,
        "unix_socket_dir =",
        "auth_type = trust",
        "auth_file = " + directory.resolve("users.txt"),
        "pool_mode = transaction",
        "default_pool_size = 2",
        "ignore_startup_parameters = extra_float_digits,options",
        "logfile = " + directory.resolve("pgbouncer.log"),
        ""));
    Files.writeString(directory.resolve("users.txt"), "\"postgres\" \"\"\n");
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      // PgBouncer refuses to run as root.
      new ProcessBuilder("chown", "-R", "postgres", directory.toString()).inheritIO().start().waitFor();
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.addAll(List.of("/usr/sbin/pgbouncer", directory.resolve("pgbouncer.ini").toString()));
    bouncer = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(directory.resolve("stdout.log").toFile()).start();
    ListeningPort.await(bouncer, port, Duration.ofSeconds(20), directory.resolve("stdout.log").toString());
  }

  @AfterAll
  static void stopPgBouncer() {
    if (bouncer != null) {
      bouncer.destroy();
    }
  }

  private static CliRun doctor(String parameters) {
    return CliRun.of("doctor", "--url", "jdbc:postgresql://127.0.0.1:" + port + "/" + RunDatabases.name()
        + "?user=postgres" + parameters, "--table-prefix", PREFIX);
  }

  @Test
  void the_transaction_pooler_is_seen_and_the_drivers_default_prepared_statements_through_it_are_named_but_safe() {
    CliRun run = doctor("");

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("INFO    pooler", "a transaction pooler is in front (the relay connects to port "
        + port + ", the server listens", "prepareThreshold=5", "fix: prepareThreshold=0")
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
