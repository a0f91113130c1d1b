package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What an operator's discard leaves behind on the discarded entries' keys: each one's available time, passed on to its
 * key's next undelivered entry when that one would be available earlier.
 *
 * <h2>Why</h2>
 * An entry's available time may be the bound by which a copy of its last send lands: a quarantine after a timed-out
 * send keeps that bound, and a failed attempt's next attempt time is never before it. Deleting the entry makes the
 * key's next undelivered entry its head; were that one available earlier, a relay could send it before the late copy
 * of the discarded one lands, and the key's stream would arrive out of order. So the bound moves onto that entry. This
 * holds for every discard: of entries waiting for an operator ({@code discard}, {@code discardAll}) and of waiting
 * entries ({@code discardWaiting}).
 *
 * <p>The next entry is the next in <em>key order</em>: the smallest {@code key_seq} above the discarded one's among the
 * key's undelivered entries, never the next {@code seq}, which MariaDB/MySQL hand out outside the key's lock, so that a
 * key's {@code seq} order may disagree with its commit order there (docs/schema.md). Each probe is one descent of the
 * index on {@code (ordering_key, key_seq)} (PostgreSQL, undelivered rows only) or {@code (head_key, key_seq)}
 * (MariaDB/MySQL and H2, where {@code head_key} is the key of undelivered rows only).
 *
 * <p>When the key has no next undelivered entry, the key's row keeps the bound ({@code late_copies_until}, schema V14),
 * and the key's numbering (the insert trigger) makes every entry of the key written later available no earlier. The
 * key's row is locked before the probe, and a writer holds it from numbering its entry to its commit: so a writer's
 * entry either committed before the probe (which finds it, in READ COMMITTED) or is numbered after this transaction
 * commits (and reads the bound). Each discard clears the kept bounds that have passed, so the kept ones are at most
 * those set within the longest late-copy bound.
 *
 * <p>Immutable and thread-safe; its methods run inside the caller's transaction, after the discarded rows were locked
 * and deleted there (so the probe never finds one of them).
 */
final class DiscardedBounds {
  /** The columns {@link #read} expects, in this order. */
  static final String COLUMNS = "id, ordering_key, key_seq, available_at";

  /**
   * A row picked for an operator's action, as its key's order needs it.
   *
   * @param id the entry's id
   * @param key the raw ordering key column, {@code null} for an unkeyed entry
   * @param keySeq the entry's {@code key_seq} ({@code 0} when the row has none)
   * @param availableAt the entry's available time
   */
  record Picked(UUID id, @Nullable String key, long keySeq, Instant availableAt) {}

  private final JdbcDialect dialect;
  private final String table;
  private final String nextOfKey;
  private final String lockKey;
  private final String keepBound;
  private final String clearPassed;

  /**
   * @param dialect the store's dialect
   * @param table the qualified outbox table
   * @param keyTable the qualified key table (one row per ordering key ever written)
   * @param postgres whether the database is PostgreSQL (its key index is partial; elsewhere {@code head_key} is)
   */
  DiscardedBounds(JdbcDialect dialect, String table, String keyTable, boolean postgres) {
    this.dialect = dialect;
    this.table = table;
    String ofKey = postgres ? "ordering_key = ? AND status <> 'DELIVERED'" : "head_key = ?";
    this.nextOfKey = "SELECT seq FROM " + table + " WHERE " + ofKey + " AND key_seq > ? ORDER BY key_seq LIMIT 1";
    this.lockKey = "SELECT ordering_key FROM " + keyTable + " WHERE ordering_key = ? FOR UPDATE";
    this.keepBound = "UPDATE " + keyTable + " SET late_copies_until = ? WHERE ordering_key = ?"
        + " AND (late_copies_until IS NULL OR late_copies_until < ?)";
    this.clearPassed = "UPDATE " + keyTable + " SET late_copies_until = NULL WHERE late_copies_until <= ?";
  }

  /** @return the rows of a statement that reads {@link #COLUMNS} first */
  List<Picked> read(PreparedStatement select) throws SQLException {
    List<Picked> picked = new ArrayList<>();
    try (ResultSet row = select.executeQuery()) {
      while (row.next()) {
        UUID id = Objects.requireNonNull(dialect.getUuid(row, 1), "id");
        String key = row.getString(2);
        long keySeq = row.getLong(3);
        Instant availableAt = Objects.requireNonNull(dialect.getInstant(row, 4), "available_at");
        picked.add(new Picked(id, key, keySeq, availableAt));
      }
    }
    return picked;
  }

  /**
   * Moves each deleted entry's available time onto its key's next undelivered entry in key order, when later than
   * that entry's own; a bound still ahead of {@code now} whose key has no next entry is kept on the key's row. Entries
   * of one key are handled in key order, so the latest bound wins. Then clears the kept bounds that have passed.
   *
   * @param deleted entries deleted in the caller's transaction
   * @param now the store's time: a bound not after it holds nothing back
   */
  void passOn(Connection c, List<Picked> deleted, Instant now) throws SQLException {
    List<Picked> keyed = new ArrayList<>();
    for (Picked gone : deleted) {
      if (gone.key() != null) {
        keyed.add(gone);
      }
    }
    if (keyed.isEmpty()) {
      return;
    }
    keyed.sort(Comparator.comparing((Picked p) -> Objects.requireNonNull(p.key())).thenComparingLong(Picked::keySeq));
    try (PreparedStatement lock = c.prepareStatement(lockKey);
        PreparedStatement select = c.prepareStatement(nextOfKey);
        PreparedStatement update = c.prepareStatement("UPDATE " + table
            + " SET available_at = ?, version = version + 1 WHERE seq = ? AND available_at < ?");
        PreparedStatement keep = c.prepareStatement(keepBound)) {
      @Nullable String locked = null;
      for (Picked gone : keyed) {
        String key = Objects.requireNonNull(gone.key());
        boolean ahead = gone.availableAt().isAfter(now);
        if (ahead && !key.equals(locked)) {
          lock.setString(1, key); // before the probe: see the class comment
          lock.executeQuery().close();
          locked = key;
        }
        select.setString(1, key);
        select.setLong(2, gone.keySeq());
        Long next = null;
        try (ResultSet found = select.executeQuery()) {
          if (found.next()) {
            next = found.getLong(1);
          }
        }
        if (next != null) {
          dialect.setInstant(update, 1, gone.availableAt());
          update.setLong(2, next);
          dialect.setInstant(update, 3, gone.availableAt());
          update.executeUpdate();
        } else if (ahead) {
          dialect.setInstant(keep, 1, gone.availableAt());
          keep.setString(2, key);
          dialect.setInstant(keep, 3, gone.availableAt());
          keep.executeUpdate();
        }
      }
    }
    try (PreparedStatement clear = c.prepareStatement(clearPassed)) {
      dialect.setInstant(clear, 1, now);
      clear.executeUpdate();
    }
  }
}
