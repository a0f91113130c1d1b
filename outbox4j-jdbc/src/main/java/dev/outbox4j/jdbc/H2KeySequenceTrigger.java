package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Locale;
import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The H2 counterpart of the per-key sequence triggers on PostgreSQL and MariaDB, installed by the H2 migration as a
 * {@code BEFORE INSERT} trigger on the outbox table. H2 triggers are Java classes, so this one must be public; it is
 * not meant to be called by applications.
 *
 * <p>Why: for a keyed row it increments the key's row in {@code <table>_key} (creating it on first use). The update
 * locks that row until the writing transaction ends, so a second writer of the same key waits, and the number it gets
 * is allocated only after the first committed: {@code key_seq} order is commit order. Unkeyed rows do nothing. When
 * the key's row keeps a late-copy bound (schema V14: its last entry was discarded while a copy of a send of it could
 * still land), the new entry is available no earlier.
 *
 * <p>H2 creates one instance per trigger and calls it from many sessions; the instance holds only names and column
 * positions fixed at {@link #init}, so it is thread-safe.
 */
public final class H2KeySequenceTrigger implements Trigger {
  private static final int MAX_ATTEMPTS = 5;

  private @Nullable String keyTable;
  private int keyColumn = -1;
  private int keySeqColumn = -1;
  private int availableAtColumn = -1;
  /** Whether the key table keeps late-copy bounds (schema V14 and later). */
  private boolean keepsBounds;

  /** Called by H2. */
  public H2KeySequenceTrigger() {}

  @Override
  public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
      int type) throws SQLException {
    this.keyTable = "\"" + schemaName + "\".\"" + tableName + "_KEY\"";
    DatabaseMetaData metaData = connection.getMetaData();
    try (ResultSet columns = metaData.getColumns(null, schemaName, tableName, null)) {
      while (columns.next()) {
        String name = columns.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
        int position = columns.getInt("ORDINAL_POSITION") - 1;
        if (name.equals("ordering_key")) {
          keyColumn = position;
        } else if (name.equals("key_seq")) {
          keySeqColumn = position;
        } else if (name.equals("available_at")) {
          availableAtColumn = position;
        }
      }
    }
    try (ResultSet bound = metaData.getColumns(null, schemaName, tableName + "_KEY", "LATE_COPIES_UNTIL")) {
      keepsBounds = bound.next() && availableAtColumn >= 0;
    }
    if (keyColumn < 0 || keySeqColumn < 0) {
      throw new SQLException("table " + schemaName + "." + tableName + " has no ordering_key or key_seq column");
    }
  }

  @Override
  public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
      throws SQLException {
    if (newRow == null || newRow[keyColumn] == null) {
      return;
    }
    String key = newRow[keyColumn].toString();
    for (int attempt = 1; ; attempt++) {
      try (PreparedStatement bump = connection.prepareStatement(
          "UPDATE " + keyTable + " SET last_seq = last_seq + 1 WHERE ordering_key = ?")) {
        bump.setString(1, key);
        if (bump.executeUpdate() == 0) {
          try (PreparedStatement first = connection.prepareStatement(
              "INSERT INTO " + keyTable + " (ordering_key, last_seq) VALUES (?, 1)")) {
            first.setString(1, key);
            first.executeUpdate();
          }
        }
        break;
      } catch (SQLException e) {
        // a concurrent first writer of this key inserted its row: go round and increment that row instead
        if (!"23505".equals(e.getSQLState()) || attempt >= MAX_ATTEMPTS) {
          throw e;
        }
      }
    }
    try (PreparedStatement read = connection.prepareStatement("SELECT last_seq"
        + (keepsBounds ? ", late_copies_until" : "") + " FROM " + keyTable + " WHERE ordering_key = ?")) {
      read.setString(1, key);
      try (ResultSet row = read.executeQuery()) {
        row.next();
        newRow[keySeqColumn] = row.getLong(1);
        OffsetDateTime bound = keepsBounds ? row.getObject(2, OffsetDateTime.class) : null;
        if (bound != null && newRow[availableAtColumn] instanceof OffsetDateTime availableAt
            && bound.isAfter(availableAt)) {
          newRow[availableAtColumn] = bound;
        }
      }
    }
  }
}
