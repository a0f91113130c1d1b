package dev.outbox4j.jdbc.flow;

import dev.outbox4j.jdbc.inbox.TestDatabase;

class MariaDbFlowLedgerTest extends JdbcFlowLedgerContract {
  MariaDbFlowLedgerTest() {
    super(TestDatabase.MARIADB);
  }
}
