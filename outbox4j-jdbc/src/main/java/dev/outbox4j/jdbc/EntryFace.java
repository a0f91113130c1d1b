package dev.outbox4j.jdbc;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.internal.EntryTransitions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The entry face of a {@link JdbcOutboxStore}, for hosts that drive delivery themselves and for tools. Each mutation
 * locks the row ({@code SELECT ... FOR UPDATE}), compares the caller's version, checks that the entry's status allows
 * the transition, writes, and commits: a stale version raises {@link OptimisticConflictException}, a missing row
 * {@link EntryNotFoundException}, a refused transition {@link dev.outbox4j.EntryTransitionException}. {@code save}
 * inserts only a version-0 entry, so a stale copy of a deleted entry is never inserted again. These are tool paths, so
 * they favour exactness over round trips.
 */
final class EntryFace extends StoreJdbc {

  EntryFace(StoreJdbc store) {
    super(store);
  }


  public OutboxEntry enqueue(Message message) {
    limits.check(message);
    OutboxEntry entry = OutboxEntry.pending(message, clock.instant());
    inTransaction("enqueue", c -> {
      insert(c, entry, e -> new DuplicateMessageException(message.id(), e));
      return null;
    });
    // Read back after commit: on PostgreSQL a keyed entry's sequence is assigned at commit. A running relay may have
    // delivered and deleted it in between: then answer with the entry as written (version 1, as the insert stored it),
    // so a later entry-face change of it finds no row instead of bringing it back.
    return find(message.id()).orElseGet(() -> new OutboxEntry(message, entry.sequence(), entry.status(),
        entry.attempts(), null, null, entry.createdAt(), entry.availableAt(), null, null, 1));
  }

  public Optional<OutboxEntry> find(UUID id) {
    return autoCommit("find", c -> Optional.ofNullable(select(c, id, false)));
  }

  public List<OutboxEntry> findPending(int max) {
    EntryTransitions.checkMax(max);
    if (max == 0) {
      return List.of();
    }
    return autoCommit("findPending", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE status = 'PENDING' ORDER BY seq LIMIT ?")) {
        select.setInt(1, max);
        return rows.quarantineUnreadable(c, readRows(select));
      }
    });
  }

  public List<OutboxEntry> findRetryReady(Instant now, int max) {
    EntryTransitions.checkMax(max);
    if (max == 0) {
      return List.of();
    }
    return autoCommit("findRetryReady", c -> {
      try (PreparedStatement select = c.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
          + " WHERE status = 'FAILED' AND available_at <= ? ORDER BY seq LIMIT ?")) {
        dialect.setInstant(select, 1, now);
        select.setInt(2, max);
        return rows.quarantineUnreadable(c, readRows(select));
      }
    });
  }

  public OutboxEntry markDelivered(OutboxEntry entry, @Nullable String result) {
    Instant now = clock.instant();
    return mutate("markDelivered", entry, e -> {
      EntryTransitions.checkMarkDelivered(e);
      return new OutboxEntry(e.message(), e.sequence(), EntryStatus.DELIVERED, e.attempts(), e.lastError(), null,
          e.createdAt(), e.availableAt(), now, OutboxRows.clip(result), e.version(), null, e.firstFailedAt());
    });
  }

  public OutboxEntry markFailed(OutboxEntry entry, String error, @Nullable Instant nextRetryAt) {
    return mutate("markFailed", entry, e -> {
      EntryTransitions.checkMarkFailed(e);
      return new OutboxEntry(e.message(), e.sequence(), nextRetryAt != null ? EntryStatus.FAILED : EntryStatus.PARKED,
          e.attempts() + 1, OutboxRows.clip(error), null, e.createdAt(),
          nextRetryAt != null ? nextRetryAt : e.availableAt(), null, null, e.version(), null,
          e.firstFailedAt() != null ? e.firstFailedAt() : clock.instant());
    });
  }

  public OutboxEntry markDeadLettered(OutboxEntry entry, String error, @Nullable String reason) {
    return mutate("markDeadLettered", entry, e -> {
      EntryTransitions.checkMarkDeadLettered(e);
      return new OutboxEntry(e.message(), e.sequence(), EntryStatus.QUARANTINED, e.attempts(), OutboxRows.clip(error),
          OutboxRows.clip(reason != null ? reason : error), e.createdAt(), e.availableAt(), null, null, e.version(),
          QuarantineKind.DEAD_LETTERED, e.firstFailedAt());
    });
  }

  public OutboxEntry save(OutboxEntry given) {
    limits.check(given.message());
    OutboxEntry entry = EntryTransitions.normalizeSaved(given);
    OutboxEntry saved = inTransaction("save", c -> {
      OutboxEntry stored = select(c, entry.id(), true);
      if (stored == null && entry.version() != 0) {
        throw new EntryNotFoundException(entry.id()); // read earlier, row gone since: never bring it back
      }
      if (stored == null) {
        insert(c, entry, e -> conflict(entry, e));
        if (entry.status() == EntryStatus.DELIVERED && retention.deletesOnDelivery()) {
          OutboxEntry inserted = Objects.requireNonNull(select(c, entry.id(), false));
          delete(c, entry.id());
          return inserted;
        }
        return null; // read back after commit
      }
      if (stored.version() != entry.version()) {
        throw new OptimisticConflictException(entry.id(), entry.version());
      }
      EntryTransitions.checkSave(stored, entry);
      return write(c, new OutboxEntry(stored.message(), stored.sequence(), entry.status(), entry.attempts(),
          OutboxRows.clip(entry.lastError()), OutboxRows.clip(entry.quarantineReason()), stored.createdAt(),
          entry.availableAt(), entry.deliveredAt(), OutboxRows.clip(entry.deliveryResult()), stored.version(),
          entry.quarantineKind(), entry.firstFailedAt()));
    });
    return saved != null ? saved : find(entry.id()).orElseThrow(() -> new EntryNotFoundException(entry.id()));
  }

  /** Locks the entry, checks the caller's version, applies the change (version bumped here) and commits. */
  OutboxEntry mutate(String what, OutboxEntry entry, UnaryOperator<OutboxEntry> change) {
    return inTransaction(what, c -> {
      OutboxEntry stored = select(c, entry.id(), true);
      if (stored == null) {
        throw new EntryNotFoundException(entry.id());
      }
      if (stored.version() != entry.version()) {
        throw new OptimisticConflictException(entry.id(), entry.version());
      }
      return write(c, change.apply(stored));
    });
  }

  /**
   * Stores a changed entry whose version is still the stored one: deletes it when it is delivered and the retention
   * deletes on delivery, else updates its state and clears any claim.
   *
   * @return the entry as stored, with its version bumped
   */
  OutboxEntry write(Connection connection, OutboxEntry e) throws SQLException {
    OutboxEntry bumped = new OutboxEntry(e.message(), e.sequence(), e.status(), e.attempts(), e.lastError(),
        e.quarantineReason(), e.createdAt(), e.availableAt(), e.deliveredAt(), e.deliveryResult(), e.version() + 1,
        e.quarantineKind(), e.firstFailedAt());
    if (e.status() == EntryStatus.DELIVERED && retention.deletesOnDelivery()) {
      delete(connection, e.id());
      return bumped;
    }
    try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET status = ?, attempts = ?,"
        + " last_error = ?, quarantine_reason = ?, available_at = ?, delivered_at = ?, delivery_result = ?,"
        + " quarantine_kind = ?, first_failed_at = ?, claim_token = NULL, lease_until = NULL, version = version + 1"
        + " WHERE id = ?")) {
      update.setString(1, e.status().name());
      update.setInt(2, e.attempts());
      update.setString(3, e.lastError());
      update.setString(4, e.quarantineReason());
      dialect.setInstant(update, 5, e.availableAt());
      dialect.setInstant(update, 6, e.deliveredAt());
      update.setString(7, e.deliveryResult());
      update.setString(8, e.quarantineKind() == null ? null : e.quarantineKind().name());
      dialect.setInstant(update, 9, e.firstFailedAt());
      dialect.setUuid(update, 10, e.id());
      update.executeUpdate();
    }
    return Objects.requireNonNull(select(connection, e.id(), false));
  }

  void delete(Connection connection, UUID id) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
      dialect.setUuid(delete, 1, id);
      delete.executeUpdate();
    }
  }

  void insert(Connection connection, OutboxEntry entry, Function<SQLException, OutboxException> onDuplicate)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(rows.insert)) {
      rows.bindInsert(insert, entry);
      insert.executeUpdate();
    } catch (SQLException e) {
      if (dialect.isUniqueViolation(e)) {
        throw onDuplicate.apply(e);
      }
      throw e;
    }
  }

  @Nullable OutboxEntry select(Connection connection, UUID id, boolean forUpdate) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement("SELECT " + OutboxRows.columns("") + " FROM " + table
        + " WHERE id = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
      dialect.setUuid(select, 1, id);
      List<OutboxEntry> found = readAll(select);
      return found.isEmpty() ? null : found.get(0);
    }
  }
}
