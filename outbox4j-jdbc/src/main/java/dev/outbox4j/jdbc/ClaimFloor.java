package dev.outbox4j.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * Where a claim starts reading the waiting entries (PostgreSQL, and MariaDB/MySQL's leased-row claim): the
 * <b>floor</b>, a {@code seq} below which no entry waits now or will wait later, so the claim window's index scan
 * begins there instead of at the oldest index entry.
 *
 * <h2>Why</h2>
 * A retired entry leaves its entry in the claim's index until vacuum (MariaDB: purge) removes it, and while another
 * session holds a transaction open (the xmin horizon; MariaDB's oldest read view) nothing can be removed or, on
 * PostgreSQL, even marked dead: a window read from the index's start would visit the row of every entry retired since
 * that transaction began, claim after claim (docs/benchmarks.md, "Horizon"). From the floor, the scan is a descent to
 * the first entry that may still wait.
 *
 * <h2>Why the floor is safe</h2>
 * Entries are numbered by a sequence when they are inserted, but become visible when their transaction commits, so a
 * smaller {@code seq} can appear after a larger one was read. On PostgreSQL every transaction that inserts into the
 * outbox holds a {@code RowExclusiveLock} on it from before it takes its number until it ends ({@code pg_locks} shows
 * it). So each claim first takes a <em>sample</em> ({@link Source}): the last number handed out, then the transactions
 * holding that lock (MariaDB/MySQL shows no such list: its samples are older instead, see {@link MariaDbSource}). Once
 * every transaction of an earlier sample has ended (none is among the holders a later claim reads), every entry numbered up
 * to that sample's last value is committed or gone, and visible to any statement that starts afterwards. Such a
 * statement (the window) also reads the first waiting entry at or above the current floor; the new floor is the smaller
 * of that entry and the sample's last value + 1. An entry below it is not waiting, and none can join it: the only later
 * commits number above the sample.
 *
 * <p>An entry can also come back to waiting below the floor by an operator's requeue; and on MariaDB/MySQL numbers
 * are handed out before they settle. For these, and for anything this reasoning missed, the floor is checked again in
 * the background every {@link #RESCAN_NANOS}: the oldest waiting entry, read from the index's start (one slow read, off
 * the claim's path), lowers the floor when it lies below. A requeue through this store lowers it at once
 * ({@link #reset()}). Should the sequence go back (a restarted identity), the floor starts again from zero.
 *
 * <h2>Each key's floor</h2>
 * The same holds for a key's head probe ("its first undelivered entry"), which walks the key's index entries from its
 * first: it starts at the key's head as a claim last found it ({@link #learnHead}). That head was the first undelivered
 * entry in a snapshot, a delivered entry never waits again (a requeue takes only quarantined and parked ones, which are
 * undelivered), and a key's numbers only grow: they are drawn from the outbox sequence under the key's lock, at commit
 * (schema V12). So no earlier entry of the key can wait again, unless numbers are handed out twice (the sequence was
 * set back): the probe then finds another undelivered entry with the head's number but not its {@code seq}, and walks
 * from the key's start, and the next sample sees the sequence go back and forgets every key floor. They are not
 * forgotten otherwise: while a transaction elsewhere holds the horizon back, a probe from a key's start walks every
 * entry of the key delivered since, and forgetting them all at once would make the next claims do that for every key
 * (seconds per claim, eight minutes into a hold at 2,000 msgs/s). Kept for the {@link #MAX_KEY_FLOORS} keys learned
 * last.
 *
 * <p>The key floors are PostgreSQL's only: MariaDB's head probe reads from the key's first index entry.
 *
 * <p>Thread-safe: several claims of one store may sample at once; a sample is used only by a claim whose holder read
 * began after that sample was complete.
 */
final class ClaimFloor {
  private static final Logger LOG = Logger.getLogger(ClaimFloor.class.getName());
  /** How often the floor is checked against the oldest waiting entry, read from the index's start. */
  static final long RESCAN_NANOS = 30_000_000_000L;
  /** Samples kept: the oldest go first, which only delays the floor while an outbox writer stays open that long. */
  private static final int MAX_SAMPLES = 256;
  /** The most keys whose floor is kept (and sent with each claim); the least recently learned go first. */
  static final int MAX_KEY_FLOORS = 2048;
  /** A claim adds a sample only this long after the last one, so the samples kept span a long writer. */
  private static final long SAMPLE_SPACING_NANOS = 20_000_000L;

  /**
   * The database's view of the numbers handed out and of the transactions that may hold one not committed yet. Each
   * method is one read in the claim's transaction; neither may start the transaction's snapshot (the window statement
   * after them must see what committed until it starts).
   */
  interface Source {
    /**
     * @return a {@code seq} such that every transaction that took a number up to it and has not ended is among the
     *     {@link #writers} read next: the last number handed out (PostgreSQL), or one handed out long enough ago that
     *     its transaction is taken to have ended (MariaDB/MySQL); a smaller answer only keeps the floor lower
     */
    long lastValue(Connection c) throws SQLException;

    /**
     * @return one identity per open transaction, other than the caller's, that may have taken a number and not ended:
     *     any identity a transaction keeps while it is open, never one a later transaction can take while it is
     */
    Set<String> writers(Connection c) throws SQLException;
  }

  /** One claim's sample: the last number handed out, then the transactions that may still hold a lower one. */
  record Sample(long lastValue, Set<String> writers, long takenAt) {}

  /** What a claim read before its window: the samples it may use, its own sample, the floor in force. */
  record Reading(List<Sample> earlier, Sample sample, long floor, long epoch) {}

  private final String table;
  private final String waiting;
  private final Source source;
  private final LongSupplier nanoTime;
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private volatile long floor;
  /** Counts the times the floor was lowered: a claim that read above an older floor must not raise the new one. */
  private long epoch;
  private volatile long lastValue = -1;
  private volatile long rescanDue;
  private final AtomicBoolean rescanning = new AtomicBoolean();
  /** Each key's floor: its head as a claim last found it, {@code key_seq} and {@code seq}; least recent first. */
  private final LinkedHashMap<String, long[]> keyFloors = new LinkedHashMap<>();

  /**
   * @param table the qualified outbox table
   * @param waiting the condition, over alias {@code w}, of a waiting entry (the claim index's predicate)
   * @param source where the samples come from
   */
  ClaimFloor(String table, String waiting, Source source, LongSupplier nanoTime) {
    this.table = table;
    this.waiting = waiting;
    this.source = source;
    this.nanoTime = nanoTime;
    this.rescanDue = nanoTime.getAsLong() + RESCAN_NANOS;
  }

  /** @return the current floor: no entry below it waits */
  long floor() {
    return floor;
  }

  /** Forgets the floor (a requeue through this store): the next window reads from the index's start. */
  synchronized void reset() {
    floor = 0;
    epoch++;
    samples.clear();
  }

  /**
   * Notes that a claim found {@code keySeq} ({@code seq}) to be its key's head: every earlier entry of the key was
   * delivered or gone in that claim's snapshot, and a key's numbers only grow, so none can wait again. The key's probe
   * then starts there ({@link #keyFloorsJson}).
   */
  synchronized void learnHead(String key, long keySeq, long seq) {
    keyFloors.remove(key);
    keyFloors.put(key, new long[] {keySeq, seq});
    if (keyFloors.size() > MAX_KEY_FLOORS) {
      Iterator<String> eldest = keyFloors.keySet().iterator();
      eldest.next();
      eldest.remove();
    }
  }

  /**
   * @return the keys' floors as a JSON object, {@code {"key": "keySeq,seq"}}: the claim's head probe of a key starts at
   *     {@code keySeq} unless the key holds another undelivered entry numbered {@code keySeq} (a number handed out
   *     again: the outbox sequence was set back), see {@link LeasedBatchClaims}
   */
  synchronized String keyFloorsJson() {
    Map<String, String> floors = new LinkedHashMap<>();
    keyFloors.forEach((key, head) -> floors.put(key, head[0] + "," + head[1]));
    return HeaderJson.encode(floors);
  }

  /**
   * Takes this claim's sample, in the claim's transaction before its window statement.
   *
   * @return what the window statement needs, and {@link #advance} after it
   */
  Reading sample(Connection c) throws SQLException {
    List<Sample> earlier;
    long readFloor;
    long readEpoch;
    synchronized (this) {
      earlier = List.copyOf(samples);
      readFloor = floor;
      readEpoch = epoch;
    }
    long last = source.lastValue(c);
    Set<String> writers = source.writers(c);
    if (last < lastValue) {
      reset(); // the sequence went back: what was learned of the old numbers says nothing of the new ones
      synchronized (this) {
        keyFloors.clear();
      }
      readFloor = 0;
      earlier = List.of();
      synchronized (this) {
        readEpoch = epoch;
      }
    }
    lastValue = last;
    return new Reading(earlier, new Sample(last, Set.copyOf(writers), nanoTime.getAsLong()), readFloor, readEpoch);
  }

  /**
   * After the window statement (which started after {@link #sample}): raises the floor, and keeps the sample.
   *
   * @param reading what {@link #sample} returned for this claim
   * @param firstWaiting the smallest {@code seq} at or above {@code reading.floor()} that the window statement saw
   *     waiting, or {@code 0} when none
   */
  void advance(Reading reading, long firstWaiting) {
    Sample settled = null;
    for (Sample earlier : reading.earlier()) {
      if (Collections.disjoint(earlier.writers(), reading.sample().writers())) {
        settled = earlier; // samples are kept oldest first: the last settled one is the newest
      }
    }
    synchronized (this) {
      if (settled != null) {
        long bound = settled.lastValue() + 1;
        long next = firstWaiting == 0 ? bound : Math.min(firstWaiting, bound);
        if (next > floor && epoch == reading.epoch()) {
          floor = next;
        }
        Iterator<Sample> older = samples.iterator();
        while (older.hasNext() && older.next().takenAt() < settled.takenAt()) {
          older.remove(); // an older sample can only give a lower bound now
        }
      }
      Sample newest = samples.peekLast();
      if (newest == null || reading.sample().takenAt() - newest.takenAt() >= SAMPLE_SPACING_NANOS) {
        samples.addLast(reading.sample());
        if (samples.size() > MAX_SAMPLES) {
          samples.removeFirst();
        }
      }
    }
  }

  /**
   * Starts the background check of the floor when it is due: the oldest waiting entry, read from the index's start on
   * a connection of its own; a floor above it is lowered to it.
   */
  void rescanIfDue(LeasedBatchClaims.Connections connections) {
    long now = nanoTime.getAsLong();
    if (now - rescanDue < 0 || floor == 0 || !rescanning.compareAndSet(false, true)) {
      return;
    }
    rescanDue = now + RESCAN_NANOS;
    CompletableFuture.runAsync(() -> {
      try {
        long oldest = connections.autoCommit("claim floor", c -> {
          try (PreparedStatement read = c.prepareStatement("SELECT coalesce(min(w.seq), 0) FROM " + table
              + " w WHERE w." + waiting)) {
            try (ResultSet result = read.executeQuery()) {
              result.next();
              return result.getLong(1);
            }
          }
        });
        lower(oldest);
      } catch (RuntimeException e) {
        LOG.log(Level.FINE, "the background check of the claim floor failed; the next one is due in 30 s", e);
      } finally {
        rescanning.set(false);
      }
    });
  }

  /** Lowers the floor to {@code oldestWaiting} when it lies below (an entry that came back to waiting). */
  synchronized void lower(long oldestWaiting) {
    if (oldestWaiting > 0 && oldestWaiting < floor) {
      floor = oldestWaiting;
      epoch++;
      samples.clear();
    }
  }

  /**
   * PostgreSQL's samples: the last value of the sequence that numbers {@code seq}, then the transactions holding a
   * {@code RowExclusiveLock} on the outbox, which an inserting transaction takes before its number and keeps until it
   * ends ({@code pg_locks}; neither read takes a snapshot of the tables).
   */
  static final class PostgresSource implements Source {
    private final String table;
    private volatile @Nullable String sequence;

    PostgresSource(String table) {
      this.table = table;
    }

    @Override
    public long lastValue(Connection c) throws SQLException {
      try (PreparedStatement read = c.prepareStatement("SELECT coalesce(pg_sequence_last_value(?::regclass), 0)")) {
        read.setString(1, sequence(c));
        try (ResultSet result = read.executeQuery()) {
          result.next();
          return result.getLong(1);
        }
      }
    }

    @Override
    public Set<String> writers(Connection c) throws SQLException {
      Set<String> writers = new HashSet<>();
      try (PreparedStatement read = c.prepareStatement("SELECT l.virtualtransaction FROM pg_locks l"
          + " WHERE l.locktype = 'relation' AND l.relation = ?::regclass AND l.mode = 'RowExclusiveLock'"
          + " AND l.granted AND l.pid IS DISTINCT FROM pg_backend_pid()")) {
        read.setString(1, table);
        try (ResultSet result = read.executeQuery()) {
          while (result.next()) {
            writers.add(result.getString(1));
          }
        }
      }
      return writers;
    }

    /**
     * The sequence that numbers {@code seq}, checked once to hand out its numbers in order: a cache lets each session
     * draw from its own range, and a key's entries are numbered from this sequence in commit order (schema V12).
     */
    private String sequence(Connection c) throws SQLException {
      String name = sequence;
      if (name == null) {
        long cache = 0;
        try (PreparedStatement read = c.prepareStatement("SELECT s.seqname, q.seqcache FROM"
            + " (SELECT pg_get_serial_sequence(?, 'seq') AS seqname) s"
            + " LEFT JOIN pg_sequence q ON q.seqrelid = s.seqname::regclass")) {
          read.setString(1, table);
          try (ResultSet result = read.executeQuery()) {
            result.next();
            name = result.getString(1);
            cache = result.getLong(2);
          }
        }
        if (name == null) {
          throw new SQLException("the column seq of " + table + " is not numbered by a sequence it owns");
        }
        if (cache > 1) {
          throw new SQLException("the sequence " + name + " has CACHE " + cache + "; the outbox needs CACHE 1, since"
              + " each key's entries are numbered from it in commit order: ALTER SEQUENCE " + name + " CACHE 1");
        }
        sequence = name;
      }
      return name;
    }
  }

  /**
   * MariaDB/MySQL's samples: the table's next {@code AUTO_INCREMENT} less one ({@code information_schema.TABLES}; MySQL
   * 8 may answer from cached statistics, an older and so smaller value), as read at least {@code settleNanos} before,
   * and no writers. InnoDB shows no reliable list of the transactions that write the outbox: {@code INNODB_TRX} is a
   * cache that is refreshed only when it was not read for 100 ms, so under frequent reads it can show the transactions
   * of long ago. So the floor passes a number only once it was handed out {@code settleNanos} ago: an entry whose
   * transaction commits later than that after its {@code INSERT} can be left below the floor, and is found by the
   * background check ({@link #RESCAN_NANOS}), later but never out of its key's order (its key's later entries commit
   * after it, and each is claimable only as its key's head, which is probed from the key's first entry).
   */
  static final class MariaDbSource implements Source {
    /** How long after a number was handed out the floor may pass it. */
    static final long SETTLE_NANOS = 5_000_000_000L;
    /** Last values read, with when: the newest one old enough is the sample's. */
    private final ArrayDeque<long[]> lastValues = new ArrayDeque<>();
    private final @Nullable String schema;
    private final String tableName;
    private final long settleNanos;
    private final LongSupplier nanoTime;

    MariaDbSource(@Nullable String schema, String tableName, long settleNanos, LongSupplier nanoTime) {
      this.schema = schema;
      this.tableName = tableName;
      this.settleNanos = settleNanos;
      this.nanoTime = nanoTime;
    }

    @Override
    public long lastValue(Connection c) throws SQLException {
      long read = 0;
      try (PreparedStatement select = c.prepareStatement("SELECT coalesce(t.AUTO_INCREMENT, 1) - 1 FROM"
          + " information_schema.TABLES t WHERE t.TABLE_SCHEMA = coalesce(?, DATABASE()) AND t.TABLE_NAME = ?")) {
        select.setString(1, schema);
        select.setString(2, tableName);
        try (ResultSet result = select.executeQuery()) {
          if (result.next()) {
            read = result.getLong(1);
          }
        }
      }
      long now = nanoTime.getAsLong();
      synchronized (lastValues) {
        long[] newest = lastValues.peekLast();
        if (newest != null && read < newest[1]) {
          lastValues.clear(); // the numbers went back: the older readings say nothing of the new ones
          newest = null;
        }
        if (newest == null || now - newest[0] >= SAMPLE_SPACING_NANOS) {
          lastValues.addLast(new long[] {now, read});
        }
        long[] settled = null;
        while (!lastValues.isEmpty() && now - lastValues.getFirst()[0] >= settleNanos) {
          settled = lastValues.removeFirst();
        }
        if (settled == null) {
          return 0;
        }
        lastValues.addFirst(settled); // the newest reading old enough, until a newer one is
        return settled[1];
      }
    }

    /** @return none: the sample's number is old enough on its own */
    @Override
    public Set<String> writers(Connection c) {
      return Set.of();
    }
  }
}
