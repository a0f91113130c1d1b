package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.OutboxStoreContract;
import dev.outbox4j.testkit.PlainSqlRow;
import java.time.Clock;

/** The store contract on H2. */
class H2OutboxStoreTest extends OutboxStoreContract {
  @Override
  protected OutboxStore newStore(Clock clock, Retention retention) {
    return TestDatabase.H2.emptyStore("h2store_", clock, retention);
  }

  @Override
  protected boolean insertWithPlainSql(PlainSqlRow row) {
    TestDatabase.H2.insertWithPlainSql("h2store_", row);
    return true;
  }

  @Override
  protected boolean renumberAfterEveryEntry(java.util.UUID id) {
    TestDatabase.H2.renumberAfterEveryEntry("h2store_", id);
    return true;
  }

  @Override
  protected OutboxStore operatorStore() {
    return TestDatabase.H2.operatorStore("h2store_", clock, Retention.deleteOnDelivery());
  }

  @Override
  protected boolean refuseClaims(boolean refuse) {
    TestDatabase.H2.refuseClaims("h2store_", refuse);
    return true;
  }
}
