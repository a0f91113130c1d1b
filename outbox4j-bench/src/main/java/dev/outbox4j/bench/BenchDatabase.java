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
 * The database service the scenarios run against, PostgreSQL or MariaDB ({@code --db}): opens connection pools
 * (PostgreSQL's tagged with our application name, so the {@link CpuMeter} can tell our backends from other
 * applications'; on MariaDB it tells them by their client ports) and runs set-up statements, with the few statements
 * whose spelling differs between the two ({@link #analyze}, {@link #truncate}).
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

  /** @return whether this is MariaDB (else PostgreSQL) */
  boolean mariaDb() {
    return options.mariaDb();
  }

  /**
   * Refreshes the tables' statistics as a run's starting state: PostgreSQL {@code VACUUM ANALYZE} (this test server
   * runs with autovacuum off), MariaDB {@code ANALYZE TABLE} (InnoDB's purge needs no help).
   *
   * @param tables fixed identifiers chosen by the benchmark
   */
  void analyze(String... tables) throws SQLException {
    String[] statements = new String[tables.length];
    for (int i = 0; i < tables.length; i++) {
      statements[i] = (mariaDb() ? "ANALYZE TABLE " : "VACUUM ANALYZE ") + tables[i];
    }
    execute(statements);
  }

  /** Empties the tables: one {@code TRUNCATE} of all on PostgreSQL, one per table on MariaDB. */
  void truncate(String... tables) throws SQLException {
    if (mariaDb()) {
      String[] statements = new String[tables.length];
      for (int i = 0; i < tables.length; i++) {
        statements[i] = "TRUNCATE TABLE " + tables[i];
      }
      execute(statements);
    } else {
      execute("TRUNCATE " + String.join(", ", tables));
    }
  }

  /** @return the SQL of the current time as the outbox tables store it (PostgreSQL {@code now()}, MariaDB UTC) */
  String now() {
    return mariaDb() ? "UTC_TIMESTAMP(6)" : "now()";
  }

  /**
   * @param from the first number
   * @param to the last number, inclusive
   * @return a row source of the whole numbers {@code from..to} in a column {@code g}: {@code generate_series} on
   *     PostgreSQL, the sequence engine on MariaDB
   */
  String series(long from, long to) {
    return mariaDb() ? "(SELECT seq AS g FROM seq_" + from + "_to_" + to + ") s"
        : "generate_series(" + from + ", " + to + ") g";
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

  /**
   * Runs statements one by one in auto-commit mode on a fresh connection (VACUUM cannot run in a transaction).
   *
   * @param statements SQL without parameters
   */
  void execute(String... statements) throws SQLException {
    try (Connection connection = java.sql.DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  /**
   * Runs one statement with bound parameters in auto-commit mode on a fresh connection.
   *
   * @param sql one statement with {@code ?} placeholders
   * @param parameters bound in order ({@code byte[]} as bytes, anything else as an object)
   */
  void executeWith(String sql, Object... parameters) throws SQLException {
    try (Connection connection = java.sql.DriverManager.getConnection(options.jdbcUrl(), options.user(), "");
        java.sql.PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        if (parameters[i] instanceof byte[] bytes) {
          statement.setBytes(i + 1, bytes);
        } else {
          statement.setObject(i + 1, parameters[i]);
        }
      }
      statement.execute();
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
