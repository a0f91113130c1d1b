package dev.outbox4j.jdbc;

import dev.outbox4j.spi.WaitingSelector;
import java.util.ArrayList;
import java.util.List;

/**
 * The text of the operator's statements on waiting entries and destination pauses (see {@code docs/stores.md},
 * "Operator face"). Package-private: {@link JdbcOutboxStore} runs what it returns, binding every value as a parameter;
 * only validated table names ({@link TableNames}) and fixed text are ever concatenated.
 *
 * <h2>Why "not under an unexpired claim" has two parts on PostgreSQL</h2>
 * An entry under a leased-row claim carries an unexpired {@code lease_until}. An entry claimed under
 * {@link ClaimStrategy#SESSION_LOCKS} writes nothing to its row: it is held by another connection's advisory lock, and
 * after that relay died, by its batch row in the claim table until the lease has passed. So on PostgreSQL a statement
 * that must leave claimed entries alone also skips the entries of unexpired batch rows and those whose advisory lock it
 * cannot take (held to the end of its own transaction, which also keeps a session claim from taking them meanwhile),
 * exactly as a leased-row claim does there.
 */
final class OperatorSql {
  private OperatorSql() {}

  /**
   * The selected waiting entries under no unexpired claim.
   *
   * @param names the table names
   * @param postgres whether the database is PostgreSQL (session-lock claims may exist)
   * @param selector which entries
   * @param locking whether to take the advisory locks of session claims (for a change) or only look (for a count)
   * @return the condition and the text parameters to bind after the parameters {@code now} (and on PostgreSQL a second
   *     {@code now}) that it starts with
   */
  static Condition waiting(TableNames names, boolean postgres, WaitingSelector selector, boolean locking) {
    StringBuilder where = new StringBuilder("status IN ('PENDING', 'FAILED') AND (lease_until IS NULL OR lease_until <= ?)");
    if (postgres) {
      where.append(" AND seq NOT IN (").append(SessionClaims.inUnexpiredBatches(names.qualified("outbox_claim")))
          .append(")");
    }
    List<String> texts = new ArrayList<>();
    if (selector.destination() != null) {
      where.append(" AND destination = ?");
      texts.add(selector.destination());
    }
    if (selector.orderingKey() != null) {
      where.append(" AND ordering_key = ?");
      texts.add(selector.orderingKey());
    }
    if (postgres && locking) {
      String table = names.qualified("outbox");
      where.append(" AND pg_try_advisory_xact_lock(").append(SessionClaims.namespace(table)).append(", ")
          .append(SessionClaims.lockKey("seq")).append(")");
    }
    return new Condition(where.toString(), postgres ? 2 : 1, texts);
  }

  /**
   * A WHERE condition over the outbox table.
   *
   * @param sql the condition
   * @param instants how many {@code now} parameters it starts with
   * @param texts the text parameters that follow them, in order
   */
  record Condition(String sql, int instants, List<String> texts) {}

  /** @return the count of the entries matching a condition. Parameters: the condition's */
  static String countWaiting(String table, Condition condition) {
    return "SELECT COUNT(*) FROM " + table + " WHERE " + condition.sql();
  }

  /**
   * @return the ids of up to {@code ?} entries matching a condition, oldest first, locked. Parameters: the
   *     condition's, then the limit
   */
  static String lockWaiting(String table, Condition condition) {
    return "SELECT id FROM " + table + " WHERE " + condition.sql() + " ORDER BY seq LIMIT ? FOR UPDATE";
  }

  /**
   * @param idList a parenthesised list of {@code ?}
   * @return the statement that parks the listed entries still waiting and unclaimed. Parameters: now, the ids
   */
  static String park(String table, String idList) {
    return "UPDATE " + table + " SET status = 'PARKED', claim_token = NULL, lease_until = NULL,"
        + " version = version + 1 WHERE status IN ('PENDING', 'FAILED')"
        + " AND (lease_until IS NULL OR lease_until <= ?) AND id IN " + idList;
  }

  /**
   * @param idList a parenthesised list of {@code ?}
   * @return the statement that deletes the listed entries still waiting and unclaimed. Parameters: now, the ids
   */
  static String discard(String table, String idList) {
    return "DELETE FROM " + table + " WHERE status IN ('PENDING', 'FAILED')"
        + " AND (lease_until IS NULL OR lease_until <= ?) AND id IN " + idList;
  }

  /** @return the insert of a pause. Parameters: destination, paused at, paused by, reason */
  static String insertPause(String pauseTable) {
    return "INSERT INTO " + pauseTable + " (destination, paused_at, paused_by, reason) VALUES (?, ?, ?, ?)";
  }

  /** @return the delete of a pause. Parameter: destination */
  static String deletePause(String pauseTable) {
    return "DELETE FROM " + pauseTable + " WHERE destination = ?";
  }

  /** @return every pause, by destination. Columns: destination, paused_at, paused_by, reason */
  static String selectPauses(String pauseTable) {
    return "SELECT destination, paused_at, paused_by, reason FROM " + pauseTable + " ORDER BY destination";
  }
}
