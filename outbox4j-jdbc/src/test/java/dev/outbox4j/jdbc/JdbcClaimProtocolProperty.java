package dev.outbox4j.jdbc;

import dev.outbox4j.Message;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.testkit.ClaimProtocolProperty;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The claim-protocol property on one of the real databases: an emptied store over the class's own tables, and writes
 * through the store's {@link JdbcOutbox} inside a transaction of a connection of the same pool, committed or rolled
 * back. Each call of a concurrent group takes a connection of its own from the pool.
 */
abstract class JdbcClaimProtocolProperty extends ClaimProtocolProperty {
  private final TestDatabase database;
  private final String prefix;
  private final @Nullable ClaimStrategy claims;

  JdbcClaimProtocolProperty(TestDatabase database, String prefix, @Nullable ClaimStrategy claims) {
    this.database = database;
    this.prefix = prefix;
    this.claims = claims;
  }

  @Override
  protected final OutboxStore newStore(Clock clock, Retention retention) {
    return database.emptyStore(prefix, clock, retention, claims);
  }

  @Override
  protected final void writeInTransaction(OutboxStore store, List<Message> messages, boolean commit) {
    try (Connection connection = database.pool(prefix).getConnection()) {
      connection.setAutoCommit(false);
      try {
        ((JdbcOutboxStore) store).outbox().writeAll(connection, messages);
      } finally {
        if (commit) {
          connection.commit();
        } else {
          connection.rollback();
        }
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("the writer's transaction failed", e);
    }
  }

  /** Each chain costs a few hundred round trips: fewer chains than in memory, the same chain length. */
  @Override
  protected int defaultTries() {
    return 40;
  }
}
