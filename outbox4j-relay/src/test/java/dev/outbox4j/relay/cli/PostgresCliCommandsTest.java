package dev.outbox4j.relay.cli;

import dev.outbox4j.jdbc.testing.RunDatabases;

/** The operator commands on PostgreSQL (this test JVM's own database). */
class PostgresCliCommandsTest extends CliCommandsContract {
  @Override
  protected String url() {
    return RunDatabases.postgresUrl();
  }

  @Override
  protected String missingDatabaseUrl() {
    return "jdbc:postgresql://127.0.0.1:5432/o4j_absent_" + RunDatabases.name() + "?user=postgres&password=hunter2secret";
  }
}
