package dev.outbox4j.jdbc.inbox;

class MariaDbInboxTest extends JdbcInboxContract {
  MariaDbInboxTest() {
    super(InboxAndFlowDatabase.MARIADB);
  }
}
