package dev.outbox4j.relay.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
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

  /**
   * @param config the configuration
   * @throws OutboxException when the database cannot be reached, or an H2 URL names a file that does not exist
   */
  OutboxAccess(RelayConfig config) {
    this(config, false);
  }

  /**
   * @param config the configuration
   * @param mayCreate whether an H2 URL may name a file that does not exist yet (H2 then creates it): only for
   *     {@code migrate}
   * @throws OutboxException when the database cannot be reached, or (unless {@code mayCreate}) an H2 URL names a file
   *     that does not exist
   */
  OutboxAccess(RelayConfig config, boolean mayCreate) {
    if (!mayCreate) {
      refuseMissingH2File(config.database());
    }
    RelayConfig.Database small = config.database().withPoolSize(2);
    this.pool = RelayAssembly.dataSource(small, "outbox4j-cli");
    try {
      this.store = RelayAssembly.store(pool, small);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /**
   * @param database the settings
   * @throws OutboxException when the URL is an H2 file URL and the file does not exist (H2 would create an empty one)
   */
  static void refuseMissingH2File(RelayConfig.Database database) {
    H2Files.missing(database.url()).ifPresent(file -> {
      throw new OutboxException("cannot connect to the database " + database.displayUrl() + ": the H2 database file "
          + file + " does not exist (check --url or database.url; 'migrate' creates it)", null);
    });
  }

  javax.sql.DataSource dataSource() {
    return pool;
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
