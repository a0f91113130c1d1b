package dev.outbox4j.jdbc.flow;

import dev.outbox4j.jdbc.inbox.TestDatabase;

class H2FlowLedgerTest extends JdbcFlowLedgerContract {
  H2FlowLedgerTest() {
    super(TestDatabase.H2);
  }
}
