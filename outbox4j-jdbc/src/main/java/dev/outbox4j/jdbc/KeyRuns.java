package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs of a key (see {@link dev.outbox4j.spi.OutboxStore}, "Runs of a key"): which entries right behind claimed heads
 * may join a claim, and how a key's claims stay its head plus a gap-free run behind it. Used only by a claim with
 * {@code maxRun > 1}; a claim of heads only never comes here, so its statements stay what they were.
 *
 * <h2>Why followers are found this way</h2>
 * A run's members are read per head, through the index on {@code (key, key_seq)}, at most {@code maxRun - 1} entries
 * of each key behind its head, whatever the key's backlog: on PostgreSQL one statement for all heads (a
 * {@code LATERAL} probe per head), on MariaDB/MySQL and H2 (no {@code LATERAL}) one statement of {@code UNION ALL}ed
 * per-key probes. They are read without locks and judged here: the run ends before the first entry that is not
 * pending (failed, quarantined, parked), not available, under an unexpired claim, or, rarely on MariaDB/MySQL, whose
 * {@code seq} is not after its predecessor's (that database numbers {@code seq} outside the key's lock, so a key's
 * {@code seq} order may disagree with its commit order; a run is kept in both orders, so that the claims, which come
 * back in {@code seq} order, are in key order too). The heads fill the batch first, and the runs the room they leave,
 * oldest members first, which keeps every run a prefix of itself; so no more followers are read than that room.
 *
 * <p>The claim then takes the members with the same fresh re-checks as heads (after its locks), and anything it drops
 * (changed meanwhile, unreadable) takes every later member of its run with it: {@link #broken}.
 *
 * <p>Immutable and thread-safe.
 */
final class KeyRuns {
  /**
   * What a claim takes: heads (and unkeyed entries) and their runs, in {@code seq} order.
   *
   * @param seqs every entry to take, ascending
   * @param previous for each run member behind a head, the member right before it; heads and unkeyed entries have none
   * @param stale whether a member's previous claim expired (a leased-row lease, or an expired batch row): a takeover is
   *     needed before the members are taken
   */
  record Plan(List<Long> seqs, Map<Long, Long> previous, boolean stale) {
    /** @return the member before {@code seq} in its run, {@code 0} for a head or an unkeyed entry */
    long previousOf(long seq) {
      return previous.getOrDefault(seq, 0L);
    }
  }

  /** A head of a key: its {@code seq}, key and {@code key_seq}. */
  record Head(long seq, String key, long keySeq) {}

  /** An entry behind a head, as read: what decides whether it may join the head's run. */
  private record Follower(long seq, String status, boolean available, boolean leased, boolean stale, boolean held) {
    boolean joins() {
      return "PENDING".equals(status) && available && !leased && !held;
    }
  }

  private final JdbcDialect dialect;
  private final String table;
  private final String claimTable;

  /**
   * @param dialect the store's dialect
   * @param table the qualified outbox table
   * @param claimTable the qualified claim table (PostgreSQL's leased batches)
   */
  KeyRuns(JdbcDialect dialect, String table, String claimTable) {
    this.dialect = dialect;
    this.table = table;
    this.claimTable = claimTable;
  }

  /**
   * PostgreSQL, both claim strategies: the runs behind the locked heads, in the room the heads leave. A member in a batch row
   * that has not expired is under a claim; one in an expired batch row, or with an expired lease, needs a takeover.
   *
   * @param locked the locked heads and unkeyed entries
   */
  Plan followPostgres(Connection c, List<Long> locked, int maxRun, int limit, Instant now) throws SQLException {
    int perHead = followersWorthReading(locked.size(), maxRun, limit);
    if (perHead == 0) {
      return plan(locked, Map.of(), maxRun, limit);
    }
    String sql = "SELECT h.seq, f.seq, f.status, CASE WHEN f.available_at <= ? THEN 1 ELSE 0 END,"
        + " CASE WHEN f.lease_until > ? THEN 1 ELSE 0 END,"
        + " CASE WHEN f.lease_until IS NOT NULL OR f.seq IN (SELECT unnest(e.seqs) FROM " + claimTable + " e"
        + " WHERE e.lease_until <= ?) THEN 1 ELSE 0 END,"
        + " CASE WHEN f.seq IN (" + LeasedBatchClaims.inUnexpiredBatches(claimTable) + ") THEN 1 ELSE 0 END"
        + " FROM " + table + " h CROSS JOIN LATERAL (SELECT n.seq, n.key_seq, n.status, n.available_at, n.lease_until"
        + " FROM " + table + " n WHERE n.ordering_key = h.ordering_key AND n.status <> 'DELIVERED'"
        + " AND n.key_seq > h.key_seq ORDER BY n.key_seq LIMIT ?) f"
        + " WHERE h.seq = ANY(?) AND h.status IN ('PENDING', 'FAILED') AND h.ordering_key IS NOT NULL"
        + " ORDER BY h.seq, f.key_seq";
    Map<Long, List<Follower>> followers = new LinkedHashMap<>();
    try (PreparedStatement statement = c.prepareStatement(sql)) {
      dialect.setInstant(statement, 1, now);
      dialect.setInstant(statement, 2, now);
      dialect.setInstant(statement, 3, now);
      dialect.setInstant(statement, 4, now);
      statement.setInt(5, perHead);
      statement.setArray(6, c.createArrayOf("bigint", locked.toArray()));
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          followers.computeIfAbsent(rows.getLong(1), head -> new ArrayList<>()).add(follower(rows));
        }
      }
    }
    return plan(locked, followers, maxRun, limit);
  }

  /**
   * MariaDB/MySQL and H2: the runs behind the picked heads, cut to the limit, in one statement per
   * {@value StoreJdbc#MAX_IDS_PER_STATEMENT} keyed heads. No batch rows there: a member is claimed only by its lease.
   *
   * @param picked the picked heads and unkeyed entries, ascending
   * @param keyed the keyed ones among them
   */
  Plan followByKey(Connection c, List<Long> picked, List<Head> keyed, int maxRun, int limit, Instant now)
      throws SQLException {
    int perHead = followersWorthReading(picked.size(), maxRun, limit);
    Map<Long, List<Follower>> followers = new HashMap<>();
    for (int from = 0; perHead > 0 && from < keyed.size(); from += StoreJdbc.MAX_IDS_PER_STATEMENT) {
      List<Head> heads = keyed.subList(from, Math.min(keyed.size(), from + StoreJdbc.MAX_IDS_PER_STATEMENT));
      Map<String, Long> headOfKey = new HashMap<>();
      heads.forEach(head -> headOfKey.put(head.key(), head.seq()));
      StringBuilder probes = new StringBuilder();
      for (int i = 0; i < heads.size(); i++) {
        probes.append(i == 0 ? "" : " UNION ALL ").append("(SELECT f.head_key, f.seq, f.key_seq, f.status,"
            + " f.available_at, f.lease_until FROM " + table + " f WHERE f.head_key = ? AND f.key_seq > ?"
            + " ORDER BY f.key_seq LIMIT ?)");
      }
      String sql = "SELECT u.head_key, u.seq, u.status, CASE WHEN u.available_at <= ? THEN 1 ELSE 0 END,"
          + " CASE WHEN u.lease_until > ? THEN 1 ELSE 0 END, CASE WHEN u.lease_until IS NOT NULL THEN 1 ELSE 0 END,"
          + " 0 FROM (" + probes + ") u ORDER BY u.head_key, u.key_seq";
      try (PreparedStatement statement = c.prepareStatement(sql)) {
        dialect.setInstant(statement, 1, now);
        dialect.setInstant(statement, 2, now);
        int next = 3;
        for (Head head : heads) {
          statement.setString(next++, head.key());
          statement.setLong(next++, head.keySeq());
          statement.setInt(next++, perHead);
        }
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            Long head = headOfKey.get(rows.getString(1));
            if (head != null) {
              followers.computeIfAbsent(head, h -> new ArrayList<>()).add(follower(rows));
            }
          }
        }
      }
    }
    return plan(picked, followers, maxRun, limit);
  }

  /**
   * @param taken the heads and unkeyed entries already taken
   * @return how many entries behind each head are worth reading: no more than a run may add, and no more than the
   *     room the heads leave under the limit; {@code 0} when the heads fill the batch (then no statement runs)
   */
  private static int followersWorthReading(int taken, int maxRun, int limit) {
    return Math.max(0, Math.min(maxRun - 1, limit - taken));
  }

  /** Reads columns 2 to 7 of a followers statement. */
  private static Follower follower(ResultSet row) throws SQLException {
    return new Follower(row.getLong(2), row.getString(3), row.getInt(4) == 1, row.getInt(5) == 1, row.getInt(6) == 1,
        row.getInt(7) == 1);
  }

  /**
   * Each head's run as far as it goes (see the class comment); then the heads (and unkeyed entries) come first, and the
   * runs fill the room they leave, oldest members first: within a run {@code seq} rises, so the oldest members of all
   * runs are a prefix of each run.
   */
  private static Plan plan(List<Long> heads, Map<Long, List<Follower>> followers, int maxRun, int limit) {
    TreeSet<Long> taken = new TreeSet<>(heads);
    while (taken.size() > limit) {
      taken.pollLast();
    }
    TreeSet<Long> members = new TreeSet<>();
    Map<Long, Long> previous = new HashMap<>();
    Set<Long> stale = new HashSet<>();
    for (Long head : taken) {
      long before = head;
      int run = 1;
      for (Follower follower : followers.getOrDefault(head, List.of())) {
        if (run == maxRun || !follower.joins() || follower.seq() <= before || taken.contains(follower.seq())
            || members.contains(follower.seq())) {
          break;
        }
        members.add(follower.seq());
        previous.put(follower.seq(), before);
        if (follower.stale()) {
          stale.add(follower.seq());
        }
        before = follower.seq();
        run++;
      }
    }
    int room = limit - taken.size();
    for (Long member : members) {
      if (room-- <= 0) {
        break;
      }
      taken.add(member);
    }
    List<Long> seqs = new ArrayList<>(taken);
    previous.keySet().retainAll(taken);
    stale.retainAll(taken);
    return new Plan(seqs, previous, !stale.isEmpty());
  }

  /**
   * @param previous each run member's predecessor ({@link Plan#previous})
   * @param kept the entries a claim still has after its re-checks
   * @return the kept entries behind a member that was dropped: they must be dropped too (and given back), so that a
   *     key's claims are its head and a gap-free run behind it
   */
  static Set<Long> broken(Map<Long, Long> previous, Collection<Long> kept) {
    Set<Long> whole = new HashSet<>();
    Set<Long> broken = new HashSet<>();
    for (Long seq : new TreeSet<>(kept)) { // a predecessor comes before its member in seq order
      Long before = previous.get(seq);
      if (before == null || whole.contains(before)) {
        whole.add(seq);
      } else {
        broken.add(seq);
      }
    }
    return broken;
  }
}
