package dev.outbox4j.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.SQLException;
import org.junit.jupiter.api.BeforeEach;

/**
 * The JDBC scenarios on PostgreSQL with keys numbered at insert ({@link KeyNumbering#AT_INSERT}): commit order,
 * racing and concurrent writers, relays sharing the outbox, all as with the default numbering at commit.
 */
class PostgresInsertNumberingScenariosTest extends JdbcOutboxScenarios {
  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  protected String prefix() {
    return "pgins_";
  }

  @Override
  protected void killSessions(HikariDataSource pool) throws SQLException {
    PostgresScenariosTest.killSessions(pool, pool());
  }

  @BeforeEach
  void numberKeysAtInsert() {
    store.useKeyNumbering(KeyNumbering.AT_INSERT);
  }
}
