package dev.outbox4j.relay.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;

/**
 * A short-lived connection to an outbox for one operator command: a pool of two connections and the store over it.
 *
 * <p>Not thread-safe; one per command.
 */
final class OutboxAccess implements AutoCloseable {
  private final HikariDataSource pool;
  private final JdbcOutboxStore store;

  OutboxAccess(RelayConfig config) {
    RelayConfig.Database small = config.database().withPoolSize(2);
    this.pool = RelayAssembly.dataSource(small, "outbox4j-cli");
    try {
      this.store = RelayAssembly.store(pool, small);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  JdbcOutboxStore store() {
    return store;
  }

  @Override
  public void close() {
    store.close();
    pool.close();
  }
}
