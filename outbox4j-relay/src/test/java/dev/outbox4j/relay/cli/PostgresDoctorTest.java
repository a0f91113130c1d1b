package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.KeyNumbering;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * {@code doctor} on PostgreSQL (this test JVM's own database). The settings cases change that database's own defaults
 * (ALTER DATABASE, reset afterwards), which reach new connections only, as a DBA's change would.
 */
class PostgresDoctorTest extends DoctorContract {
  @Override
  protected String url() {
    return RunDatabases.postgresUrl();
  }

  @Override
  protected String unreachableUrl() {
    return "jdbc:postgresql://127.0.0.1:5432/o4j_absent_" + RunDatabases.name() + "?user=postgres&password=hunter2secret";
  }

  private void execute(String sql) throws SQLException {
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  @Test
  void database_defaults_of_repeatable_read_and_synchronous_commit_off_are_informational_with_their_fix()
      throws IOException, SQLException {
    String database = RunDatabases.name();
    execute("ALTER DATABASE " + database + " SET default_transaction_isolation = 'repeatable read'");
    execute("ALTER DATABASE " + database + " SET synchronous_commit = off");
    try {
      CliRun run = doctor(url(), "--json");

      assertThat(run.code()).as("informational only: " + run.out()).isZero();
      var isolation = finding(run, "isolation", "INFO");
      assertThat(isolation.get("found").asText()).contains("'repeatable read' (from database)",
          "handled by the store");
      assertThat(isolation.get("fix").asText())
          .isEqualTo("ALTER DATABASE " + database + " SET default_transaction_isolation = 'read committed'");
      var durability = finding(run, "commit-durability", "INFO");
      assertThat(durability.get("found").asText()).contains("synchronous_commit = off (from database)");
      assertThat(durability.get("fix").asText()).isEqualTo("ALTER DATABASE " + database + " SET synchronous_commit = on");
    } finally {
      execute("ALTER DATABASE " + database + " RESET default_transaction_isolation");
      execute("ALTER DATABASE " + database + " RESET synchronous_commit");
    }
  }

  @Test
  void serializable_writers_with_keys_numbered_at_commit_are_slow_and_told_to_number_at_insert()
      throws IOException, SQLException {
    String database = RunDatabases.name();
    JdbcOutboxStore store = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).build();
    execute("ALTER DATABASE " + database + " SET default_transaction_isolation = 'serializable'");
    try {
      CliRun run = doctor(url(), "--json");
      assertThat(run.code()).as(run.out()).isZero();
      var isolation = finding(run, "isolation", "SLOW");
      assertThat(isolation.get("found").asText()).contains("'serializable' (from database)", "numbered at commit");
      assertThat(isolation.get("fix").asText()).startsWith("database.key-numbering: insert");

      store.useKeyNumbering(KeyNumbering.AT_INSERT);
      run = doctor(url(), "--json");
      assertThat(finding(run, "isolation", "INFO").get("found").asText()).contains("numbered at insert");
    } finally {
      store.useKeyNumbering(KeyNumbering.AT_COMMIT);
      execute("ALTER DATABASE " + database + " RESET default_transaction_isolation");
    }
  }

  @Test
  void an_outbox_sequence_with_a_cache_is_unsafe_and_the_command_exits_1() throws IOException, SQLException {
    execute("ALTER SEQUENCE " + prefix + "outbox_seq CACHE 20");
    CliRun run = doctor(url());

    assertThat(run.code()).as(run.out()).isEqualTo(1);
    assertThat(run.out()).contains("UNSAFE  sequence-cache", "CACHE 20", "fix: ALTER SEQUENCE", "CACHE 1",
        "1 unsafe");
  }

  @Test
  void an_idle_in_transaction_timeout_shorter_than_the_lease_is_slow() throws IOException, SQLException {
    String database = RunDatabases.name();
    execute("ALTER DATABASE " + database + " SET idle_in_transaction_session_timeout = '2s'");
    try {
      CliRun run = doctor(url(), "--json");

      assertThat(run.code()).isZero();
      var idle = finding(run, "idle-timeout", "SLOW");
      assertThat(idle.get("found").asText()).contains("2000 ms (from database)", "shorter than the lease (30000 ms)");
      assertThat(idle.get("fix").asText()).isEqualTo("ALTER DATABASE " + database
          + " SET idle_in_transaction_session_timeout = '60s'");
    } finally {
      execute("ALTER DATABASE " + database + " RESET idle_in_transaction_session_timeout");
    }
  }
}
