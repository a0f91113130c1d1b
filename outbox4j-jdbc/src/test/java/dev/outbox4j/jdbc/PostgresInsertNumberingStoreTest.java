package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;

/**
 * The store contract on PostgreSQL with keys numbered at insert ({@link KeyNumbering#AT_INSERT}): key order, runs,
 * the operator face and the late-copy bounds a discarded key keeps, all as with the default numbering at commit.
 */
class PostgresInsertNumberingStoreTest extends OutboxStoreContract {
  private static final String PREFIX = "pgins_store_";

  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    JdbcOutboxStore store = TestDatabase.POSTGRES.emptyStore(PREFIX, clock, retention);
    store.useKeyNumbering(KeyNumbering.AT_INSERT);
    return store;
  }

  @Override
  protected boolean claimChangesTheEntry() {
    return false;
  }

  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    TestDatabase.POSTGRES.insertWithPlainSql(PREFIX, row);
    return true;
  }

  @Override
  protected boolean renumberAfterEveryEntry(java.util.UUID id) {
    TestDatabase.POSTGRES.renumberAfterEveryEntry(PREFIX, id);
    return true;
  }

  @Override
  protected OutboxStore operatorStore() {
    return TestDatabase.POSTGRES.operatorStore(PREFIX, clock, Retention.deleteOnDelivery());
  }

  @Override
  protected boolean refuseClaims(boolean refuse) {
    TestDatabase.POSTGRES.refuseClaims(PREFIX, refuse);
    return true;
  }
}
