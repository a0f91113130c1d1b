package dev.outbox4j.jdbc.inbox;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.inbox.Inbox;
import dev.outbox4j.testkit.InboxContract;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** Runs {@link InboxContract} against {@link JdbcInbox} on one {@link InboxAndFlowDatabase}; each transaction is its own
 * connection. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcInboxContract extends InboxContract<Connection> {
  private final HikariDataSource dataSource;

  JdbcInboxContract(InboxAndFlowDatabase database) {
    this.dataSource = database.newDataSource();
  }

  @Override
  protected Inbox<Connection> newInbox(Clock clock) {
    JdbcInbox inbox = JdbcInbox.builder(dataSource).withTableNames(InboxAndFlowDatabase.NAMES).withClock(clock).build();
    inbox.migrate();
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      statement.executeUpdate("DELETE FROM " + inbox.tableName());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return inbox;
  }

  @Override
  protected Connection begin() {
    try {
      Connection connection = dataSource.getConnection();
      connection.setAutoCommit(false);
      return connection;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected void commit(Connection transaction) {
    try (transaction) {
      transaction.commit();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected void rollback(Connection transaction) {
    try (transaction) {
      transaction.rollback();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  final void closePool() {
    dataSource.close();
  }
}
