package dev.outbox4j.kafka;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.TableNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A real PostgreSQL outbox (127.0.0.1:5432, database {@code test}, user {@code postgres}) for the end-to-end tests,
 * in tables of its own prefix so it never meets another module's rows. Each {@link #fresh(String)} drops and migrates
 * the prefix's tables. The caller closes it.
 */
final class PostgresOutbox implements AutoCloseable {
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private final HikariDataSource pool;
  private final JdbcOutboxStore store;

  private PostgresOutbox(String prefix) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(URL);
    config.setMaximumPoolSize(4);
    config.setPoolName("kafka-e2e-" + prefix);
    pool = new HikariDataSource(config);
    TableNames names = TableNames.withPrefix(prefix);
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + names.qualified("outbox") + ", " + names.qualified("outbox_key") + ", "
          + names.qualified("schema_version") + " CASCADE");
      s.execute("DROP FUNCTION IF EXISTS " + names.qualified("outbox_assign_key_seq") + "()");
      s.execute("DROP SEQUENCE IF EXISTS " + names.qualified("outbox_seq"));
    } catch (SQLException e) {
      pool.close();
      throw new IllegalStateException("cannot reset the " + prefix + " outbox tables", e);
    }
    store = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).build();
    store.migrate();
  }

  /**
   * @param prefix the table prefix, a valid identifier such as {@code kafka_e2e_}
   * @return a pool and an empty, migrated store over the prefix's tables
   */
  static PostgresOutbox fresh(String prefix) {
    return new PostgresOutbox(prefix);
  }

  JdbcOutboxStore store() {
    return store;
  }

  /** Writes the messages in committed transactions of up to 500, in list order, as an application would. */
  void writeAll(List<Message> messages) {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      for (int from = 0; from < messages.size(); from += 500) {
        store.outbox().writeAll(c, messages.subList(from, Math.min(messages.size(), from + 500)));
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
