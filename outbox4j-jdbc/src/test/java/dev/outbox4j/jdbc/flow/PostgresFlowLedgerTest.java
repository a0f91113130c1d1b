package dev.outbox4j.jdbc.flow;

import dev.outbox4j.jdbc.inbox.TestDatabase;

class PostgresFlowLedgerTest extends JdbcFlowLedgerContract {
  PostgresFlowLedgerTest() {
    super(TestDatabase.POSTGRESQL);
  }
}
