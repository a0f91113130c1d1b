package dev.outbox4j.jdbc.inbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.TableNames;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The three real databases the inbox and flow-ledger suites run on, as pooled data sources. Every session runs in a
 * non-UTC time zone, so an instant stored or compared in local time would show up as a failure. The first pool of
 * each database in a JVM drops this suite's tables, so every run migrates the current schema files afresh.
 */
public enum InboxAndFlowDatabase {
  POSTGRESQL("postgres", "", "SET TIME ZONE 'America/New_York'"),
  MARIADB("root", "", "SET time_zone = '+05:30'"),
  H2("sa", "",
      "SET TIME ZONE 'Asia/Tokyo'");

  /** Our own prefix, so these suites never touch the outbox tables or another suite's tables. */
  public static final TableNames NAMES = TableNames.withPrefix("o4jflowtest_");

  private static final Set<InboxAndFlowDatabase> RESET = ConcurrentHashMap.newKeySet();

  private final String user;
  private final String password;
  private final String sessionSetUp;

  InboxAndFlowDatabase(String user, String password, String sessionSetUp) {
    this.user = user;
    this.password = password;
    this.sessionSetUp = sessionSetUp;
  }

  /** @return a new pool of up to 20 connections (races use 16); close it after the test class */
  public HikariDataSource newDataSource() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(switch (this) {
      case POSTGRESQL -> RunDatabases.postgresUrl();
      case MARIADB -> RunDatabases.mariadbUrl();
      case H2 -> "jdbc:h2:mem:outbox4j_inbox_flow;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
    });
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(20);
    config.setMinimumIdle(0);
    config.setConnectionInitSql(sessionSetUp);
    config.setPoolName("outbox4j-" + name().toLowerCase(java.util.Locale.ROOT) + "-inbox-flow");
    HikariDataSource dataSource = new HikariDataSource(config);
    if (RESET.add(this)) {
      try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
        connection.setAutoCommit(true);
        for (String table : new String[] {"inbox", "flow_ledger", "schema_version"}) {
          statement.execute("DROP TABLE IF EXISTS " + NAMES.qualified(table));
        }
      } catch (SQLException e) {
        dataSource.close();
        throw new IllegalStateException("could not reset the " + this + " test tables", e);
      }
    }
    return dataSource;
  }
}
