package dev.outbox4j.jdbc.flow;

import dev.outbox4j.jdbc.inbox.InboxAndFlowDatabase;

class H2FlowLedgerTest extends JdbcFlowLedgerContract {
  H2FlowLedgerTest() {
    super(InboxAndFlowDatabase.H2);
  }
}
