package dev.outbox4j.nats;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;

/**
 * A real PostgreSQL outbox (127.0.0.1:5432, database {@code test}) under its own table prefix, emptied on open, for the
 * end-to-end tests: messages are written in the caller's transactions through {@link JdbcOutbox}, and a relay drains
 * them through {@link #store()}.
 */
final class PostgresOutbox implements AutoCloseable {
  private final HikariDataSource pool;
  private final JdbcOutboxStore store;

  PostgresOutbox(String tablePrefix) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    config.setMaximumPoolSize(8);
    config.setPoolName("outbox4j-nats-" + tablePrefix);
    pool = new HikariDataSource(config);
    store = JdbcOutboxStore.builder(pool).withTablePrefix(tablePrefix).build();
    store.migrate();
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("DELETE FROM " + store.tableNames().qualified("outbox"));
      statement.execute("DELETE FROM " + store.tableNames().qualified("outbox_key"));
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  JdbcOutboxStore store() {
    return store;
  }

  /** Writes the messages in order, committing every 500 as the application's own transactions would. */
  void write(List<Message> messages) {
    JdbcOutbox outbox = store.outbox();
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(false);
      for (int from = 0; from < messages.size(); from += 500) {
        outbox.writeAll(connection, messages.subList(from, Math.min(from + 500, messages.size())));
        connection.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  long pending() {
    return store.stats(Instant.now()).pending();
  }

  @Override
  public void close() {
    pool.close();
  }
}
