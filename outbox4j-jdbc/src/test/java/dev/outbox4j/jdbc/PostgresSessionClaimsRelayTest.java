package dev.outbox4j.jdbc;

import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.RelayContract;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The relay contract over the PostgreSQL store with {@link ClaimStrategy#SESSION_LOCKS}. */
class PostgresSessionClaimsRelayTest extends RelayContract {
  private final List<JdbcOutboxStore> opened = new ArrayList<>();

  @Override
  protected OutboxStore newStore(Clock clock) {
    return opened(TestDatabase.POSTGRES.emptyStore("pgsessrelay_", clock, Retention.deleteOnDelivery(),
        ClaimStrategy.SESSION_LOCKS));
  }

  @Override
  protected OutboxStore secondStore(Clock clock) {
    return opened(TestDatabase.POSTGRES.secondStore("pgsessrelay_", clock, Retention.deleteOnDelivery(),
        ClaimStrategy.SESSION_LOCKS));
  }

  private JdbcOutboxStore opened(JdbcOutboxStore store) {
    opened.add(store);
    return store;
  }

  @AfterEach
  void closeSessions() {
    opened.forEach(JdbcOutboxStore::close);
  }
}
