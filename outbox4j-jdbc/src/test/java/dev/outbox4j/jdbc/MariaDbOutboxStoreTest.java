package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;

/** The store contract on MariaDb. */
class MariaDbOutboxStoreTest extends OutboxStoreContract {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return TestDatabase.MARIADB.emptyStore("mystore_", clock, retention);
  }

  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    TestDatabase.MARIADB.insertWithPlainSql("mystore_", row);
    return true;
  }

  @Override
  protected boolean renumberAfterEveryEntry(java.util.UUID id) {
    TestDatabase.MARIADB.renumberAfterEveryEntry("mystore_", id);
    return true;
  }

  @Override
  protected OutboxStore operatorStore() {
    return TestDatabase.MARIADB.operatorStore("mystore_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected boolean refuseClaims(boolean refuse) {
    TestDatabase.MARIADB.refuseClaims("mystore_", refuse);
    return true;
  }
}
