package dev.outbox4j.jdbc;

import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The text of the operator's statements on waiting entries, on entries waiting for an operator (groups, selections),
 * on destination pauses and on the audit log (see {@code docs/stores.md}, "Bulk operator actions"). Package-private:
 * {@link JdbcOutboxStore} runs what it returns, binding every value as a parameter; only validated table names
 * ({@link TableNames}) and fixed text are ever concatenated.
 *
 * <h2>Why an entry in flight is never changed</h2>
 * An operator's park or discard of waiting entries must skip every entry a relay may be sending: one under an unexpired
 * claim, judged at the moment the entry is changed, not when the statement that picked it began. An entry under a
 * leased-row claim carries an unexpired {@code lease_until}, written by the claim's {@code UPDATE}: the picking
 * statement locks rows {@code FOR UPDATE}, so it waits for a claim writing the row and re-checks the row as that claim
 * committed it (PostgreSQL, MariaDB/MySQL and H2 alike), and a claim waits for the operator's lock and finds the row
 * changed.
 *
 * <p>A claim under {@link ClaimStrategy#LEASED_BATCHES} (PostgreSQL) writes nothing to the entries: it holds them by its
 * batch row in the claim table until that row's lease has passed, and while it is deciding on an entry it holds the
 * entry's transaction-scoped advisory lock, heads and run members alike ({@link LeasedBatchClaims}). So the picking
 * statement also skips the entries of unexpired batch rows and those whose advisory lock it cannot take, and holds
 * the locks it took to the end of its transaction, which keeps a claim from taking those entries meanwhile, exactly as
 * claims keep each other apart. Its check of the batch rows uses the statement's snapshot, taken before it took the
 * locks: a claim that committed in between (its locks released with its commit) is not in it. So a second statement
 * ({@link #outsideBatches}), with a snapshot taken after the locks, leaves out the entries of batch rows committed
 * meanwhile. That needs READ COMMITTED (a fresh snapshot per statement), which the transaction sets itself
 * ({@link #READ_COMMITTED}), whatever the pool, role or database default. A count takes no locks, and only skips the
 * entries of unexpired batch rows.
 *
 * <h2>Why selections of entries waiting for an operator are decided in Java</h2>
 * A {@link QuarantineSelector} may select a {@linkplain dev.outbox4j.spi.QuarantineGroup group}, whose membership
 * depends on the {@linkplain dev.outbox4j.spi.ReasonPattern reason pattern}: a regular-expression rewrite that the
 * three databases cannot run alike. So the SQL here narrows by the criteria every database matches the same way (key,
 * destination, kind, reason fragment, ids), always to a superset of the selection, reads a few short columns of each
 * row in sequence order ({@link #MEMBER_COLUMNS}, never the payload), and the store keeps the rows
 * {@link QuarantineSelector#matches} selects. A group's rows share a destination and kind, so the narrowing keeps a
 * group's read to its own destination.
 */
final class OperatorSql {
  private OperatorSql() {}

  /**
   * The selected waiting entries under no unexpired claim.
   *
   * @param names the table names
   * @param postgres whether the database is PostgreSQL (batch rows and advisory locks of claims may exist)
   * @param selector which entries
   * @param locking whether to take the entries' advisory locks, as claims do (for a change), or only look (for a count)
   * @return the condition and the text parameters to bind after the parameters {@code now} (and on PostgreSQL a second
   *     {@code now}) that it starts with
   */
  static Condition waiting(TableNames names, boolean postgres, WaitingSelector selector, boolean locking) {
    StringBuilder where = new StringBuilder("status IN ('PENDING', 'FAILED') AND (lease_until IS NULL OR lease_until <= ?)");
    if (postgres) {
      where.append(" AND seq NOT IN (").append(LeasedBatchClaims.inUnexpiredBatches(names.qualified("outbox_claim")))
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
      where.append(" AND pg_try_advisory_xact_lock(").append(LeasedBatchClaims.namespace(table)).append(", ")
          .append(LeasedBatchClaims.lockKey("seq")).append(")");
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
   * @param columns the columns to read
   * @return up to {@code ?} entries matching a condition, oldest first, locked. Parameters: the condition's, then the
   *     limit
   */
  static String lockWaiting(String table, String columns, Condition condition) {
    return "SELECT " + columns + " FROM " + table + " WHERE " + condition.sql() + " ORDER BY seq LIMIT ? FOR UPDATE";
  }

  /**
   * The first statement of every operator transaction on waiting entries (PostgreSQL): their re-check of batch rows
   * ({@link #outsideBatches}) needs a snapshot per statement.
   */
  static final String READ_COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";

  /**
   * @param idList a parenthesised list of {@code ?}
   * @return the ids of the listed entries that are in no unexpired batch row (PostgreSQL). Parameters: now, the ids
   */
  static String outsideBatches(String table, TableNames names, String idList) {
    return "SELECT id FROM " + table + " WHERE seq NOT IN ("
        + LeasedBatchClaims.inUnexpiredBatches(names.qualified("outbox_claim")) + ") AND id IN " + idList;
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

  /** The statuses that wait for an operator. */
  static final String AWAITING_OPERATOR = "status IN ('QUARANTINED', 'PARKED')";

  /**
   * The columns grouping and selecting read, in the order {@code OutboxRows.member} reads them: seq, id, ordering key,
   * destination, status, kind, and the reason (the last error where there is none).
   */
  static final String MEMBER_COLUMNS = "seq, id, ordering_key, destination, status, quarantine_kind,"
      + " COALESCE(quarantine_reason, last_error)";

  /**
   * A WHERE condition over entries waiting for an operator that is a superset of a selector's selection.
   *
   * @param sql the condition
   * @param texts its text parameters, in order
   * @param ids its id parameters, after the texts
   */
  record Narrowing(String sql, List<String> texts, List<UUID> ids) {}

  /**
   * @param selector the selection
   * @param maxIds the most ids to match in SQL; a selector naming more is narrowed by its other criteria only
   * @param unreadableName the placeholder a row's unreadable destination is read as: a selector for that destination
   *     cannot be narrowed by it in SQL
   * @return the narrowing condition
   */
  static Narrowing narrowing(QuarantineSelector selector, int maxIds, String unreadableName) {
    StringBuilder where = new StringBuilder(AWAITING_OPERATOR);
    List<String> texts = new ArrayList<>();
    if (selector.orderingKey() != null) {
      where.append(" AND ordering_key = ?");
      texts.add(selector.orderingKey());
    }
    if (selector.destination() != null && !selector.destination().equals(unreadableName)) {
      where.append(" AND destination = ?");
      texts.add(selector.destination());
    }
    if (selector.kind() != null) {
      where.append(" AND quarantine_kind = ?");
      texts.add(selector.kind().name());
    }
    if (selector.reasonContains() != null) {
      where.append(" AND COALESCE(quarantine_reason, last_error) LIKE ? ESCAPE '!'");
      texts.add("%" + selector.reasonContains().replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
    }
    List<UUID> ids = new ArrayList<>();
    if (selector.ids() != null && selector.ids().size() <= maxIds) {
      ids.addAll(selector.ids());
      where.append(" AND id IN (").append("?, ".repeat(ids.size() - 1)).append("?)");
    }
    return new Narrowing(where.toString(), texts, ids);
  }

  /**
   * @param locking whether to lock the rows read ({@code FOR UPDATE}), for a change in the same transaction
   * @return the members after a sequence, oldest first. Parameters: the narrowing's, then the sequence, then the limit
   */
  static String members(String table, Narrowing narrowing, boolean locking) {
    return "SELECT " + MEMBER_COLUMNS + " FROM " + table + " WHERE " + narrowing.sql() + " AND seq > ?"
        + " ORDER BY seq LIMIT ?" + (locking ? " FOR UPDATE" : "");
  }

  /** @return the count of the rows a narrowing matches. Parameters: the narrowing's */
  static String countAwaiting(String table, Narrowing narrowing) {
    return "SELECT COUNT(*) FROM " + table + " WHERE " + narrowing.sql();
  }

  /** @return the oldest members, for grouping. Parameter: the limit */
  static String oldestMembers(String table) {
    return "SELECT " + MEMBER_COLUMNS + " FROM " + table + " WHERE " + AWAITING_OPERATOR + " ORDER BY seq LIMIT ?";
  }

  /**
   * @param columns the columns to read
   * @return the entries a narrowing matches after a sequence, oldest first, every column. Parameters: the narrowing's,
   *     then the sequence, then the limit
   */
  static String entries(String table, String columns, Narrowing narrowing) {
    return "SELECT " + columns + " FROM " + table + " WHERE " + narrowing.sql() + " AND seq > ? ORDER BY seq LIMIT ?";
  }

  /** @return the insert of an audit line. Parameters: acted at, actor, action, target, entries, detail */
  static String insertAction(String auditTable) {
    return "INSERT INTO " + auditTable + " (acted_at, actor, action, target, entries, detail) VALUES (?, ?, ?, ?, ?, ?)";
  }

  /**
   * @return the latest audit lines, newest first. Parameter: the limit. Columns: acted at, actor, action, target,
   *     entries, detail
   */
  static String selectActions(String auditTable) {
    return "SELECT acted_at, actor, action, target, entries, detail FROM " + auditTable
        + " ORDER BY acted_at DESC, id DESC LIMIT ?";
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
