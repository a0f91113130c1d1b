package dev.outbox4j.jdbc.flow;

import dev.outbox4j.jdbc.inbox.InboxAndFlowDatabase;

class PostgresFlowLedgerTest extends JdbcFlowLedgerContract {
  PostgresFlowLedgerTest() {
    super(InboxAndFlowDatabase.POSTGRESQL);
  }
}
