package dev.outbox4j.jdbc.flow;

import dev.outbox4j.jdbc.inbox.InboxAndFlowDatabase;

class MariaDbFlowLedgerTest extends JdbcFlowLedgerContract {
  MariaDbFlowLedgerTest() {
    super(InboxAndFlowDatabase.MARIADB);
  }
}
