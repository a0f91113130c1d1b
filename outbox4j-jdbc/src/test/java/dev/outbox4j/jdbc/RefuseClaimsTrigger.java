package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * An H2 trigger that refuses every update writing a claim token (a leased-row claim), for
 * {@link TestDatabase#refuseClaims}. Thread-safe: the column's position is fixed at {@link #init}.
 */
public final class RefuseClaimsTrigger implements Trigger {
  private int tokenColumn = -1;

  /** Called by H2. */
  public RefuseClaimsTrigger() {}

  @Override
  public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
      int type) throws SQLException {
    try (ResultSet columns = connection.getMetaData().getColumns(null, schemaName, tableName, null)) {
      while (columns.next()) {
        if (columns.getString("COLUMN_NAME").toLowerCase(Locale.ROOT).equals("claim_token")) {
          tokenColumn = columns.getInt("ORDINAL_POSITION") - 1;
        }
      }
    }
    if (tokenColumn < 0) {
      throw new SQLException("table " + schemaName + "." + tableName + " has no claim_token column");
    }
  }

  @Override
  public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
      throws SQLException {
    if (newRow != null && newRow[tokenColumn] != null) {
      throw new SQLException("claims refused by the test");
    }
  }
}
