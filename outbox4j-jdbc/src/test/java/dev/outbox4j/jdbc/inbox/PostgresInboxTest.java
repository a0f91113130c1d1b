package dev.outbox4j.jdbc.inbox;

class PostgresInboxTest extends JdbcInboxContract {
  PostgresInboxTest() {
    super(TestDatabase.POSTGRESQL);
  }
}
