package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link JdbcOutboxStore} offers operators and dashboards: quarantined entries (listed, grouped, requeued,
 * discarded), waiting entries of a destination or key (counted, parked, discarded), destination pauses, the audit log
 * and purging delivered history (the stats are {@link StatsFace}'s). The bulk actions lock and change at most 500 selected rows per transaction
 * (their statements are in {@link OperatorSql}); a selection by {@linkplain dev.outbox4j.spi.QuarantineGroup group} is
 * narrowed in SQL and decided in Java over a few short columns per row (why: {@link OperatorSql}). An action on
 * waiting entries never changes an entry in flight, judged when the entry is changed (how, on each claim strategy:
 * {@link OperatorSql}); every discard passes its entries' available times on to their keys ({@link DiscardedBounds}).
 * Destination pauses live in the table {@code outbox_destination_pause}, the audit log in {@code operator_audit}.
 */
final class OperatorFace extends StoreJdbc {

  OperatorFace(StoreJdbc store) {
    super(store);
  }
  /** The statuses that wait for an operator: listed, requeued and discarded by the operator face. */
  private static final String AWAITING_OPERATOR = OperatorSql.AWAITING_OPERATOR;

  public List<OutboxEntry> quarantined(QuarantineQuery query) {
    Long after = query.afterSequence();
    return autoCommit("quarantined", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE " + AWAITING_OPERATOR + " AND seq > ? ORDER BY seq LIMIT ?")) {
        select.setLong(1, after == null ? Long.MIN_VALUE : after);
        select.setInt(2, query.limit());
        return readAll(select);
      }
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Any row of the outbox table, readable or not, by its id; timestamps as the driver renders them.
   */
  public Optional<Map<String, @Nullable String>> rawColumns(UUID id) {
    return autoCommit("rawColumns", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE id = ?")) {
        dialect.setUuid(select, 1, id);
        try (ResultSet row = select.executeQuery()) {
          return row.next() ? Optional.of(OutboxRows.raw(row)) : Optional.empty();
        }
      }
    });
  }

  public boolean requeue(UUID id, Instant now) {
    return autoCommit("requeue", c -> {
      try (PreparedStatement update = c.prepareStatement(requeueSet() + " WHERE id = ? AND " + AWAITING_OPERATOR)) {
        dialect.setInstant(update, 1, now);
        dialect.setInstant(update, 2, now);
        dialect.setUuid(update, 3, id);
        return update.executeUpdate() == 1;
      }
    });
  }

  public boolean discard(UUID id) {
    return inTransaction("discard", c -> {
      readCommittedOnPostgres(c);
      return discardLocked(c, List.of(id)) == 1;
    });
  }

  /**
   * On PostgreSQL, runs the transaction (which has run nothing yet) at READ COMMITTED, whatever the session's default:
   * a discard's look for its key's next entry must see every entry committed before it locked the key's row
   * ({@link DiscardedBounds}). MariaDB/MySQL's look is the transaction's first read without locks, so it already does.
   */
  void readCommittedOnPostgres(Connection c) throws SQLException {
    if (isPostgres()) {
      try (Statement isolation = c.createStatement()) {
        isolation.execute(OperatorSql.READ_COMMITTED);
      }
    }
  }

  /**
   * Deletes the listed entries that wait for an operator and passes each one's available time on to its key's next
   * undelivered entry ({@link DiscardedBounds}): the key's new head must not overtake a late copy. Runs inside the
   * caller's transaction.
   *
   * @return how many were deleted
   */
  int discardLocked(Connection c, List<UUID> ids) throws SQLException {
    List<DiscardedBounds.Picked> doomed;
    try (PreparedStatement select = c.prepareStatement("SELECT " + DiscardedBounds.COLUMNS + " FROM " + table
        + " WHERE " + AWAITING_OPERATOR + " AND id IN " + placeholders(ids.size()) + " ORDER BY seq FOR UPDATE")) {
      bindIds(select, 1, ids);
      doomed = bounds().read(select);
    }
    if (doomed.isEmpty()) {
      return 0;
    }
    int deleted;
    try (PreparedStatement delete = c.prepareStatement("DELETE FROM " + table + " WHERE " + AWAITING_OPERATOR
        + " AND id IN " + placeholders(doomed.size()))) {
      bindIds(delete, 1, idsOf(doomed));
      deleted = delete.executeUpdate();
    }
    bounds().passOn(c, doomed, clock.instant());
    return deleted;
  }

  /** Built on first use: the dialect may be detected only then. */
  private volatile @Nullable DiscardedBounds bounds;

  DiscardedBounds bounds() {
    DiscardedBounds built = bounds;
    if (built == null) {
      built = new DiscardedBounds(dialect, table, names.qualified("outbox_key"), isPostgres());
      bounds = built;
    }
    return built;
  }

  static List<UUID> idsOf(List<DiscardedBounds.Picked> picked) {
    return picked.stream().map(DiscardedBounds.Picked::id).toList();
  }

  /** Requeue: the available time is {@code now} (bound twice) or the stored one when later. */
  String requeueSet() {
    return "UPDATE " + table + " SET status = 'PENDING', attempts = 0, quarantine_reason = NULL,"
        + " quarantine_kind = NULL, first_failed_at = NULL,"
        + " available_at = CASE WHEN available_at > ? THEN available_at ELSE ? END,"
        + " claim_token = NULL, lease_until = NULL, version = version + 1";
  }

  public int requeueAll(QuarantineSelector selector, Instant now, int limit) {
    return bulk("requeueAll", selector, limit, (c, ids) -> {
      try (PreparedStatement update = c.prepareStatement(requeueSet() + " WHERE " + AWAITING_OPERATOR
          + " AND id IN " + placeholders(ids.size()))) {
        dialect.setInstant(update, 1, now);
        dialect.setInstant(update, 2, now);
        bindIds(update, 3, ids);
        return update.executeUpdate();
      }
    });
  }

  public int discardAll(QuarantineSelector selector, int limit) {
    return bulk("discardAll", selector, limit, this::discardLocked);
  }

  @FunctionalInterface
  private interface BulkChange {
    int apply(Connection connection, List<UUID> ids) throws SQLException;
  }

  /**
   * Changes up to {@code limit} selected entries, oldest first, in transactions of at most
   * {@value #MAX_IDS_PER_STATEMENT}: each reads and locks the next rows that the SQL narrowing matches (a superset of
   * the selection, see {@link OperatorSql}), keeps those the selector selects, and changes them. The batch bound keeps
   * lock time and statement size small however many entries match.
   */
  int bulk(String what, QuarantineSelector selector, int limit, BulkChange change) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    OperatorSql.Narrowing narrowing = narrowing(selector);
    String read = OperatorSql.members(table, narrowing, true);
    int done = 0;
    long after = Long.MIN_VALUE;
    while (done < limit) {
      int wanted = limit - done;
      long from = after;
      long[] last = {from};
      int[] scanned = {0};
      int changed = inTransaction(what, c -> {
        readCommittedOnPostgres(c);
        List<UUID> ids = new ArrayList<>();
        try (PreparedStatement select = c.prepareStatement(read)) {
          int index = bindNarrowing(select, narrowing);
          select.setLong(index, from);
          select.setInt(index + 1, MAX_IDS_PER_STATEMENT);
          try (ResultSet found = select.executeQuery()) {
            while (found.next()) {
              scanned[0]++;
              last[0] = found.getLong(1);
              if (selector.matches(rows.member(found)) && ids.size() < wanted) {
                ids.add(dialect.getUuid(found, 2));
              }
            }
          }
        }
        return ids.isEmpty() ? 0 : change.apply(c, ids);
      });
      done += changed;
      after = last[0];
      if (scanned[0] < MAX_IDS_PER_STATEMENT) {
        break;
      }
    }
    return done;
  }

  /** Looks at one row of a members read; returns whether the scan should go on. */
  @FunctionalInterface
  private interface MemberVisitor {
    boolean visit(ResultSet member) throws SQLException;
  }

  /**
   * Reads the operator columns of the rows the SQL narrowing matches, after {@code after} in sequence order, a chunk
   * of {@value QuarantineQuery#MAX_LIMIT} at a time, until they run out or the visitor says stop.
   */
  void scanMembers(Connection c, OperatorSql.Narrowing narrowing, long after, MemberVisitor visitor)
      throws SQLException {
    int chunk = QuarantineQuery.MAX_LIMIT;
    long next = after;
    try (PreparedStatement select = c.prepareStatement(OperatorSql.members(table, narrowing, false))) {
      for (int scanned = chunk; scanned == chunk; ) {
        int index = bindNarrowing(select, narrowing);
        select.setLong(index, next);
        select.setInt(index + 1, chunk);
        scanned = 0;
        try (ResultSet found = select.executeQuery()) {
          while (found.next()) {
            scanned++;
            next = found.getLong(1);
            if (!visitor.visit(found)) {
              return;
            }
          }
        }
      }
    }
  }

  OperatorSql.Narrowing narrowing(QuarantineSelector selector) {
    return OperatorSql.narrowing(selector, MAX_IDS_PER_STATEMENT, OutboxRows.UNREADABLE_NAME);
  }

  /** @return the next free parameter index */
  int bindNarrowing(PreparedStatement statement, OperatorSql.Narrowing narrowing) throws SQLException {
    int index = 1;
    for (String text : narrowing.texts()) {
      statement.setString(index++, text);
    }
    for (UUID id : narrowing.ids()) {
      dialect.setUuid(statement, index++, id);
    }
    return index;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Reads the operator columns of the rows the SQL narrowing matches, after the page's sequence, until the page is
   * full, then the full rows of those selected.
   */
  public List<OutboxEntry> quarantined(QuarantineSelector selector, QuarantineQuery query) {
    OperatorSql.Narrowing narrowing = narrowing(selector);
    Long afterSequence = query.afterSequence();
    return autoCommit("quarantined", c -> {
      List<Long> picked = new ArrayList<>();
      scanMembers(c, narrowing, afterSequence == null ? Long.MIN_VALUE : afterSequence, found -> {
        if (selector.matches(rows.member(found))) {
          picked.add(found.getLong(1));
        }
        return picked.size() < query.limit();
      });
      if (picked.isEmpty()) {
        return List.of();
      }
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE seq IN " + placeholders(picked.size()) + " ORDER BY seq")) {
        for (int i = 0; i < picked.size(); i++) {
          select.setLong(i + 1, picked.get(i));
        }
        return readAll(select).stream().filter(selector::matches).toList();
      }
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code COUNT(*)} when SQL can decide the whole selection (no group, at most
   * {@value #MAX_IDS_PER_STATEMENT} ids); otherwise a read of the operator columns of the rows the SQL narrowing
   * matches.
   */
  public int countQuarantined(QuarantineSelector selector) {
    OperatorSql.Narrowing narrowing = narrowing(selector);
    boolean exact = selector.group() == null && (selector.ids() == null || !narrowing.ids().isEmpty())
        && !OutboxRows.UNREADABLE_NAME.equals(selector.destination());
    return autoCommit("countQuarantined", c -> {
      if (exact) {
        try (PreparedStatement select = c.prepareStatement(OperatorSql.countAwaiting(table, narrowing))) {
          bindNarrowing(select, narrowing);
          try (ResultSet row = select.executeQuery()) {
            row.next();
            return row.getInt(1);
          }
        }
      }
      int[] count = {0};
      scanMembers(c, narrowing, Long.MIN_VALUE, found -> {
        if (selector.matches(rows.member(found))) {
          count[0]++;
        }
        return true;
      });
      return count[0];
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Two statements: the operator columns of the oldest {@code limit} entries waiting for an operator (never the
   * payload), and their count.
   */
  public QuarantineGroups quarantineGroups(int limit) {
    if (limit < 1 || limit > QuarantineGroups.MAX_GROUPED) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineGroups.MAX_GROUPED + ", was " + limit);
    }
    return autoCommit("quarantineGroups", c -> {
      List<QuarantineGroups.Member> members = new ArrayList<>();
      try (PreparedStatement select = c.prepareStatement(OperatorSql.oldestMembers(table))) {
        select.setInt(1, limit);
        try (ResultSet found = select.executeQuery()) {
          while (found.next()) {
            members.add(rows.member(found));
          }
        }
      }
      long total;
      try (PreparedStatement select = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE "
          + AWAITING_OPERATOR)) {
        try (ResultSet row = select.executeQuery()) {
          row.next();
          total = row.getLong(1);
        }
      }
      return QuarantineGroups.of(members, total);
    });
  }

  public void recordOperatorAction(OperatorAction action) {
    OperatorAction kept = OperatorAction.of(action.at(), action.actor(), action.action(), action.target(),
        action.entries(), action.detail());
    autoCommit("recordOperatorAction", c -> {
      try (PreparedStatement insert = c.prepareStatement(OperatorSql.insertAction(auditTable()))) {
        dialect.setInstant(insert, 1, kept.at());
        insert.setString(2, kept.actor());
        insert.setString(3, kept.action());
        insert.setString(4, kept.target());
        insert.setLong(5, kept.entries());
        insert.setString(6, kept.detail());
        return insert.executeUpdate();
      }
    });
  }

  public List<OperatorAction> operatorActions(int limit) {
    if (limit < 1 || limit > QuarantineQuery.MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + limit);
    }
    return autoCommit("operatorActions", c -> {
      try (PreparedStatement select = c.prepareStatement(OperatorSql.selectActions(auditTable()))) {
        select.setInt(1, limit);
        List<OperatorAction> actions = new ArrayList<>();
        try (ResultSet row = select.executeQuery()) {
          while (row.next()) {
            actions.add(new OperatorAction(Objects.requireNonNull(dialect.getInstant(row, 1)), row.getString(2),
                row.getString(3), row.getString(4), row.getLong(5), row.getString(6)));
          }
        }
        return actions;
      }
    });
  }

  String auditTable() {
    return names.qualified("operator_audit");
  }

  public int countWaiting(WaitingSelector selector, Instant now) {
    OperatorSql.Condition condition = OperatorSql.waiting(names, isPostgres(), selector, false);
    return autoCommit("countWaiting", c -> {
      try (PreparedStatement select = c.prepareStatement(OperatorSql.countWaiting(table, condition))) {
        bindCondition(select, condition, now);
        try (ResultSet row = select.executeQuery()) {
          row.next();
          return row.getInt(1);
        }
      }
    });
  }

  public int parkWaiting(WaitingSelector selector, Instant now, int limit) {
    return bulkWaiting("parkWaiting", selector, now, limit, (c, picked) -> {
      try (PreparedStatement update = c.prepareStatement(OperatorSql.park(table, placeholders(picked.size())))) {
        dialect.setInstant(update, 1, now);
        bindIds(update, 2, idsOf(picked));
        return update.executeUpdate();
      }
    });
  }

  /** As {@link #parkWaiting}, deleting instead; every deleted entry's available time is passed on to its key. */
  public int discardWaiting(WaitingSelector selector, Instant now, int limit) {
    return bulkWaiting("discardWaiting", selector, now, limit, (c, picked) -> {
      int deleted;
      try (PreparedStatement delete = c.prepareStatement(OperatorSql.discard(table, placeholders(picked.size())))) {
        dialect.setInstant(delete, 1, now);
        bindIds(delete, 2, idsOf(picked));
        deleted = delete.executeUpdate();
      }
      bounds().passOn(c, picked, now); // every picked row is locked and waiting, so each was deleted
      return deleted;
    });
  }

  /** A change of waiting entries picked, locked and found in no unexpired claim, in the picking transaction. */
  @FunctionalInterface
  private interface WaitingChange {
    int apply(Connection connection, List<DiscardedBounds.Picked> picked) throws SQLException;
  }

  /**
   * As {@link #bulk}, over waiting entries under no unexpired claim, as of the moment they are changed (see
   * {@link OperatorSql}, "Why an entry in flight is never changed"): each transaction runs in READ COMMITTED whatever
   * the session's default, picks and locks the entries, on PostgreSQL leaves out those that a batch claim committed
   * meanwhile (a statement of its own, so with a snapshot taken after the locks), and changes the rest.
   */
  int bulkWaiting(String what, WaitingSelector selector, Instant now, int limit, WaitingChange change) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    boolean postgres = isPostgres();
    OperatorSql.Condition condition = OperatorSql.waiting(names, postgres, selector, true);
    String lock = OperatorSql.lockWaiting(table, DiscardedBounds.COLUMNS, condition);
    int done = 0;
    while (done < limit) {
      int size = Math.min(MAX_IDS_PER_STATEMENT, limit - done);
      int[] picked = {0};
      int changed = inTransaction(what, c -> {
        if (postgres) {
          try (Statement isolation = c.createStatement()) {
            isolation.execute(OperatorSql.READ_COMMITTED);
          }
        }
        List<DiscardedBounds.Picked> locked;
        try (PreparedStatement select = c.prepareStatement(lock)) {
          int next = bindCondition(select, condition, now);
          select.setInt(next, size);
          locked = bounds().read(select);
        }
        picked[0] = locked.size();
        if (postgres && !locked.isEmpty()) {
          locked = outsideBatches(c, locked, now);
        }
        return locked.isEmpty() ? 0 : change.apply(c, locked);
      });
      done += changed;
      if (picked[0] < size) {
        break;
      }
    }
    return done;
  }

  /**
   * PostgreSQL: the picked entries that, read afresh now that this transaction holds their advisory locks, are in no
   * unexpired batch row. A batch claim that committed after the picking statement's snapshot is seen here; one that has
   * not committed cannot hold them, since it would need the locks this transaction holds.
   */
  List<DiscardedBounds.Picked> outsideBatches(Connection c, List<DiscardedBounds.Picked> locked, Instant now)
      throws SQLException {
    Set<UUID> free = new HashSet<>();
    try (PreparedStatement select = c.prepareStatement(OperatorSql.outsideBatches(table, names,
        placeholders(locked.size())))) {
      dialect.setInstant(select, 1, now);
      bindIds(select, 2, idsOf(locked));
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          free.add(dialect.getUuid(row, 1));
        }
      }
    }
    return locked.stream().filter(p -> free.contains(p.id())).toList();
  }

  /** @return the next free parameter index */
  int bindCondition(PreparedStatement statement, OperatorSql.Condition condition, Instant now)
      throws SQLException {
    int index = 1;
    for (int i = 0; i < condition.instants(); i++) {
      dialect.setInstant(statement, index++, now);
    }
    for (String text : condition.texts()) {
      statement.setString(index++, text);
    }
    return index;
  }

  public boolean pauseDestination(String destination, String by, String reason, Instant now) {
    OperatorPause pause = OperatorPause.of(destination, by, reason, now);
    return autoCommit("pauseDestination", c -> {
      try (PreparedStatement insert = c.prepareStatement(OperatorSql.insertPause(pauseTable()))) {
        insert.setString(1, pause.destination());
        dialect.setInstant(insert, 2, pause.pausedAt());
        insert.setString(3, pause.pausedBy());
        insert.setString(4, pause.reason());
        return insert.executeUpdate() == 1;
      } catch (SQLException e) {
        if (dialect.isUniqueViolation(e)) {
          return false; // paused already: the first pause stands
        }
        throw e;
      }
    });
  }

  public boolean resumeDestination(String destination) {
    return autoCommit("resumeDestination", c -> {
      try (PreparedStatement delete = c.prepareStatement(OperatorSql.deletePause(pauseTable()))) {
        delete.setString(1, destination);
        return delete.executeUpdate() > 0;
      }
    });
  }

  public List<OperatorPause> operatorPauses() {
    return autoCommit("operatorPauses", c -> {
      try (PreparedStatement select = c.prepareStatement(OperatorSql.selectPauses(pauseTable()));
          ResultSet row = select.executeQuery()) {
        List<OperatorPause> pauses = new ArrayList<>();
        while (row.next()) {
          pauses.add(new OperatorPause(row.getString(1), Objects.requireNonNull(dialect.getInstant(row, 2)),
              row.getString(3), row.getString(4)));
        }
        return pauses;
      }
    });
  }

  String pauseTable() {
    return names.qualified("outbox_destination_pause");
  }

  public int purgeDelivered(Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    Optional<Duration> keep = retention.keepPeriod();
    if (keep.isEmpty()) {
      return 0;
    }
    String sql = dialect.deleteLimited(table, "status = 'DELIVERED' AND delivered_at <= ?", "delivered_at");
    return autoCommit("purgeDelivered", c -> {
      try (PreparedStatement delete = c.prepareStatement(sql)) {
        dialect.setInstant(delete, 1, now.minus(keep.get()));
        delete.setInt(2, limit);
        return delete.executeUpdate();
      }
    });
  }
}
