package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;

/** The store contract on PostgreSQL with its default claim, {@link ClaimStrategy#LEASED_BATCHES}. */
class PostgresOutboxStoreTest extends OutboxStoreContract {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return TestDatabase.POSTGRES.emptyStore("pgstore_", clock, retention);
  }

  @Override
  protected boolean claimChangesTheEntry() {
    return false;
  }

  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    TestDatabase.POSTGRES.insertWithPlainSql("pgstore_", row);
    return true;
  }

  @Override
  protected boolean renumberAfterEveryEntry(java.util.UUID id) {
    TestDatabase.POSTGRES.renumberAfterEveryEntry("pgstore_", id);
    return true;
  }

  @Override
  protected OutboxStore operatorStore() {
    return TestDatabase.POSTGRES.operatorStore("pgstore_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected boolean refuseClaims(boolean refuse) {
    TestDatabase.POSTGRES.refuseClaims("pgstore_", refuse);
    return true;
  }
}
