package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL service the scenarios run against: opens connection pools tagged with our application name (so the
 * {@link CpuMeter} can tell our backends from other applications') and runs set-up statements.
 *
 * <p>Pools open every connection up front: a backend that starts during a measurement is counted, but its start-up
 * cost is not the scenario's.
 */
final class BenchDatabase {
  static final String APPLICATION_NAME = "outbox4j-bench";

  private final BenchOptions options;

  BenchDatabase(BenchOptions options) {
    this.options = options;
  }

  BenchOptions options() {
    return options;
  }

  /**
   * @param name the pool's name, for thread names
   * @param size connections, all opened before this returns
   * @param autoCommit the connections' auto-commit default
   * @return the pool
   */
  HikariDataSource pool(String name, int size, boolean autoCommit) throws SQLException {
    return pool(name, size, autoCommit, null);
  }

  /**
   * @param initSql run on every new connection, or {@code null}
   */
  HikariDataSource pool(String name, int size, boolean autoCommit, @Nullable String initSql) throws SQLException {
    return pool(options.jdbcUrl(), options.user(), name, size, autoCommit, initSql);
  }

  /**
   * A pool on any database (PostgreSQL's connections carry our application name, see {@link CpuMeter}).
   *
   * @param url the database's JDBC URL
   * @param user the database user (no password)
   */
  static HikariDataSource pool(String url, String user, String name, int size, boolean autoCommit,
      @Nullable String initSql) throws SQLException {
    HikariConfig config = new HikariConfig();
    if (initSql != null) {
      config.setConnectionInitSql(initSql);
    }
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPoolName("bench-" + name);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setAutoCommit(autoCommit);
    if (url.startsWith("jdbc:postgresql:")) {
      config.addDataSourceProperty("ApplicationName", APPLICATION_NAME + "-" + name);
    }
    HikariDataSource pool = new HikariDataSource(config);
    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        held.add(pool.getConnection());
      }
    } finally {
      for (Connection connection : held) {
        connection.close();
      }
    }
    return pool;
  }

  /** Runs statements one by one in auto-commit mode on a fresh connection (VACUUM cannot run in a transaction). */
  void execute(String... statements) throws SQLException {
    try (Connection connection = java.sql.DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  long count(String table) throws SQLException {
    try (Connection connection = java.sql.DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        Statement statement = connection.createStatement();
        var rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
