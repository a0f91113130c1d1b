package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The store contract on PostgreSQL with claims held by the store's session ({@link ClaimStrategy#SESSION_LOCKS}). */
class PostgresSessionClaimsStoreTest extends OutboxStoreContract {
  private final List<JdbcOutboxStore> opened = new ArrayList<>();

  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore("pgsess_", clock, retention, ClaimStrategy.SESSION_LOCKS);
    opened.add(store);
    return store;
  }

  @Override
  protected boolean claimChangesTheEntry() {
    return false;
  }

  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    TestDatabase.POSTGRES.insertWithPlainSql("pgsess_", row);
    return true;
  }

  @AfterEach
  void closeSessions() {
    opened.forEach(JdbcOutboxStore::close);
  }
}
