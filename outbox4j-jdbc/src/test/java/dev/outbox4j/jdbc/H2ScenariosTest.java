package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;

/** JDBC scenarios on embedded H2. */
class H2ScenariosTest extends JdbcOutboxScenarios {
  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected String prefix() {
    return "h2scen_";
  }

  @Override
  protected void killSessions(HikariDataSource pool) throws SQLException {
    Connection c = pool.getConnection();
    c.unwrap(Connection.class).close(); // close the physical session behind the pool's back
    pool.evictConnection(c); // H2's "already closed" is not a state the pool recognises as a broken connection
  }
}
