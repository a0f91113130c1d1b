package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** JDBC scenarios on MariaDB (session time zone +05:45). */
class MariaDbScenariosTest extends JdbcOutboxScenarios {
  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected String prefix() {
    return "myscen_";
  }

  @Override
  protected void killSessions(HikariDataSource pool) throws SQLException {
    long id;
    try (Connection c = pool.getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT CONNECTION_ID()")) {
      r.next();
      id = r.getLong(1);
    }
    try (Connection admin = pool().getConnection(); Statement s = admin.createStatement()) {
      s.execute("KILL " + id);
    }
  }
}
