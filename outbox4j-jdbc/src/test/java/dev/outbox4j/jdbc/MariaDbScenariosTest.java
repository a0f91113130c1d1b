package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.Message;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

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

  @Test
  void the_sessions_run_in_a_non_utc_time_zone_and_instants_survive_it() throws SQLException {
    try (Connection c = pool().getConnection(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT @@session.time_zone")) {
      r.next();
      assertThat(r.getString(1)).isEqualTo("+05:45");
    }
    Message message = Message.builder().withDestination("d").withNotBefore(clock.instant().minusSeconds(1)).build();
    store.enqueue(message);
    assertThat(store.find(message.id()).orElseThrow().createdAt()).isEqualTo(clock.instant());
    assertThat(store.find(message.id()).orElseThrow().message()).isEqualTo(message);
  }
}
