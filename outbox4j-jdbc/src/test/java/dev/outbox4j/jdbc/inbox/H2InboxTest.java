package dev.outbox4j.jdbc.inbox;

class H2InboxTest extends JdbcInboxContract {
  H2InboxTest() {
    super(InboxAndFlowDatabase.H2);
  }
}
