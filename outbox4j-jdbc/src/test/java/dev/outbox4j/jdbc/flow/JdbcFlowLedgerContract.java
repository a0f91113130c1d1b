package dev.outbox4j.jdbc.flow;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
import dev.outbox4j.flow.FlowLedger;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.jdbc.JdbcDialect;
import dev.outbox4j.jdbc.inbox.InboxAndFlowDatabase;
import dev.outbox4j.json.JsonFlowStateCodec;
import dev.outbox4j.testkit.FlowLedgerContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** Runs {@link FlowLedgerContract} against {@link JdbcFlowLedger} with the JSON codec on one {@link InboxAndFlowDatabase}. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcFlowLedgerContract extends FlowLedgerContract {
  private static final FlowStateCodec<String> CODEC = JsonFlowStateCodec.of(String.class);

  private final HikariDataSource dataSource;
  private final JdbcDialect dialect;
  private String table = "";
  private Clock clock = Clock.systemUTC();

  JdbcFlowLedgerContract(InboxAndFlowDatabase database) {
    this.dataSource = database.newDataSource();
    this.dialect = JdbcDialect.detect(dataSource);
  }

  @Override
  protected FlowLedger<String> newLedger(Clock clock, int maxStateBytes) {
    JdbcFlowLedger<String> ledger = JdbcFlowLedger.builder(dataSource, CODEC)
        .withTableNames(InboxAndFlowDatabase.NAMES)
        .withClock(clock)
        .withMaxStateBytes(maxStateBytes)
        .build();
    ledger.migrate();
    this.table = ledger.tableName();
    this.clock = clock;
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(true);
      statement.executeUpdate("DELETE FROM " + table);
    } catch (SQLException e) {
      throw new OutboxException("could not empty " + table, e);
    }
    return ledger;
  }

  @Override
  protected FlowStateCodec<String> codec() {
    return CODEC;
  }

  @Override
  protected void plantRaw(String flowId, long storedRevision, byte[] content, Duration ttl) {
    Instant now = clock.instant();
    try (Connection connection = dataSource.getConnection(); PreparedStatement statement = connection.prepareStatement(
        "INSERT INTO " + table + " (flow_id, revision, content, expires_at, updated_at) VALUES (?, ?, ?, ?, ?)")) {
      connection.setAutoCommit(true);
      statement.setString(1, flowId);
      statement.setLong(2, storedRevision);
      statement.setBytes(3, content);
      dialect.setInstant(statement, 4, now.plus(ttl));
      dialect.setInstant(statement, 5, now);
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new OutboxException("could not plant a row in " + table, e);
    }
  }

  @AfterAll
  final void closePool() {
    dataSource.close();
  }
}
