package dev.outbox4j.jdbc.inbox;

class PostgresInboxTest extends JdbcInboxContract {
  PostgresInboxTest() {
    super(InboxAndFlowDatabase.POSTGRESQL);
  }
}
