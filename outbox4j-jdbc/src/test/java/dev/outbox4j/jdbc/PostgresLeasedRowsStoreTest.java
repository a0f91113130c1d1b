package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;

/** The store contract on PostgreSQL with {@link ClaimStrategy#LEASED_ROWS} (not its default there). */
class PostgresLeasedRowsStoreTest extends OutboxStoreContract {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return TestDatabase.POSTGRES.emptyStore("pgrows_", clock, retention, ClaimStrategy.LEASED_ROWS);
  }

  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    TestDatabase.POSTGRES.insertWithPlainSql("pgrows_", row);
    return true;
  }

  @Override
  protected boolean renumberAfterEveryEntry(java.util.UUID id) {
    TestDatabase.POSTGRES.renumberAfterEveryEntry("pgrows_", id);
    return true;
  }

  @Override
  protected OutboxStore operatorStore() {
    return TestDatabase.POSTGRES.operatorStore("pgrows_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected boolean refuseClaims(boolean refuse) {
    TestDatabase.POSTGRES.refuseClaims("pgrows_", refuse);
    return true;
  }
}
