package dev.outbox4j.relay.cli;

/** The operator commands on an embedded H2 file database. */
class H2CliCommandsTest extends CliCommandsContract {
  @Override
  protected String url() {
    return "jdbc:h2:file:" + dir.resolve("cli").toAbsolutePath();
  }

  @Override
  protected String missingDatabaseUrl() {
    return "jdbc:h2:file:" + dir.resolve("absent/db").toAbsolutePath() + ";IFEXISTS=TRUE;PASSWORD=hunter2secret";
  }
}
