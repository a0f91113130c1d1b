package dev.outbox4j.relay.cli;

import dev.outbox4j.jdbc.testing.RunDatabases;

/** The operator commands on MariaDB (this test JVM's own database). */
class MariaDbCliCommandsTest extends CliCommandsContract {
  @Override
  protected String url() {
    return RunDatabases.mariadbUrl();
  }

  @Override
  protected String missingDatabaseUrl() {
    return "jdbc:mariadb://127.0.0.1:3306/o4j_absent_" + RunDatabases.name() + "?user=root&password=hunter2secret";
  }
}
