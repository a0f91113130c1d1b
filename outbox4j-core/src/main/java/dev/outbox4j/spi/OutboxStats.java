package dev.outbox4j.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of an outbox, or of one destination's entries in it ({@link DestinationStats}), for gauges, dashboards
 * and health checks.
 *
 * <h2>Waiting and blocked</h2>
 * Every undelivered entry that is not itself waiting for an operator is either <em>waiting</em> or <em>blocked</em>:
 * <ul>
 *   <li><b>blocked</b>: an earlier entry of its ordering key is quarantined or parked. It cannot move until an
 *       operator requeues or discards that entry (SPEC §3a: a quarantined entry blocks its key), so its age says
 *       nothing about whether relays keep up;
 *   <li><b>waiting</b>: every other pending or failed entry: claimable now, due at its next attempt or not-before
 *       time, behind its key's head that is itself waiting or in flight, or under a claim right now. The age of the
 *       oldest waiting entry is the delivery <em>lag</em>.
 * </ul>
 * The two are kept apart because a few quarantined heads with long queues behind them would otherwise make the lag
 * climb for ever while every relay is idle.
 *
 * <p>Immutable and thread-safe.
 *
 * @param waiting pending or failed entries not blocked, claimed ones included; not negative
 * @param blocked pending or failed entries behind a quarantined or parked entry of their key; not negative
 * @param inFlight entries under an unexpired claim (these are waiting entries); not negative
 * @param quarantined entries waiting for an operator: quarantined, and parked (failed with no retry scheduled); not
 *     negative
 * @param oldestWaitingCreatedAt the creation time of the oldest waiting entry; {@code null} exactly when none waits
 * @param oldestBlockedCreatedAt the creation time of the oldest blocked entry; {@code null} exactly when none is blocked
 */
public record OutboxStats(long waiting, long blocked, long inFlight, long quarantined,
    @Nullable Instant oldestWaitingCreatedAt, @Nullable Instant oldestBlockedCreatedAt) {

  /** Nothing at all: an empty outbox (or a destination with no undelivered entries). */
  public static final OutboxStats EMPTY = new OutboxStats(0, 0, 0, 0, null, null);

  /**
   * Undelivered entries a periodic reader of stats may count per second: the stats queries read every undelivered
   * entry, so on a large backlog they are slow, and a reader that kept a fixed interval of a second would then spend a
   * database connection, and a core of the database, counting the backlog instead of the relays draining it.
   */
  public static final long READ_PER_SECOND = 10_000;

  /** The longest a large backlog stretches a reader's wait ({@link #readingPace}). */
  public static final Duration READING_PACE_LIMIT = Duration.ofSeconds(30);

  /**
   * @throws IllegalArgumentException if a count is negative, or an oldest time is given for no entry (or missing for
   *     some)
   */
  public OutboxStats {
    if (waiting < 0 || blocked < 0 || inFlight < 0 || quarantined < 0) {
      throw new IllegalArgumentException("counts must not be negative: waiting " + waiting + ", blocked " + blocked
          + ", inFlight " + inFlight + ", quarantined " + quarantined);
    }
    if ((waiting == 0) != (oldestWaitingCreatedAt == null)) {
      throw new IllegalArgumentException("oldestWaitingCreatedAt must be given exactly when entries wait: waiting "
          + waiting + ", oldestWaitingCreatedAt " + oldestWaitingCreatedAt);
    }
    if ((blocked == 0) != (oldestBlockedCreatedAt == null)) {
      throw new IllegalArgumentException("oldestBlockedCreatedAt must be given exactly when entries are blocked:"
          + " blocked " + blocked + ", oldestBlockedCreatedAt " + oldestBlockedCreatedAt);
    }
  }

  /** @return entries not yet delivered and not waiting for an operator: waiting plus blocked, claimed ones included */
  public long pending() {
    return waiting + blocked;
  }

  /** @return the creation time of the oldest waiting entry (the lag's start), if any waits */
  public Optional<Instant> oldestWaiting() {
    return Optional.ofNullable(oldestWaitingCreatedAt);
  }

  /** @return the creation time of the oldest blocked entry, if any is blocked */
  public Optional<Instant> oldestBlocked() {
    return Optional.ofNullable(oldestBlockedCreatedAt);
  }

  /**
   * @return the creation time of the oldest pending entry, waiting or blocked, if any
   * @see #oldestWaiting() for the lag, which leaves blocked entries out
   */
  public Optional<Instant> oldestPending() {
    if (oldestWaitingCreatedAt == null || oldestBlockedCreatedAt == null) {
      return Optional.ofNullable(oldestWaitingCreatedAt != null ? oldestWaitingCreatedAt : oldestBlockedCreatedAt);
    }
    return Optional.of(oldestWaitingCreatedAt.isBefore(oldestBlockedCreatedAt) ? oldestWaitingCreatedAt
        : oldestBlockedCreatedAt);
  }

  /**
   * @param now the time to measure against, usually the one the snapshot was taken at
   * @return the delivery lag: the age of the oldest waiting entry; zero when none waits (never negative)
   */
  public Duration lag(Instant now) {
    return age(oldestWaitingCreatedAt, now);
  }

  /**
   * @param now the time to measure against
   * @return the age of the oldest blocked entry; zero when none is blocked (never negative)
   */
  public Duration blockedAge(Instant now) {
    return age(oldestBlockedCreatedAt, now);
  }

  private static Duration age(@Nullable Instant createdAt, Instant now) {
    if (createdAt == null || createdAt.isAfter(now)) {
      return Duration.ZERO;
    }
    return Duration.between(createdAt, now);
  }

  /**
   * @param other another snapshot
   * @return the counts of both together, and the older of each oldest time
   */
  public OutboxStats plus(OutboxStats other) {
    return new OutboxStats(waiting + other.waiting, blocked + other.blocked, inFlight + other.inFlight,
        quarantined + other.quarantined, earlier(oldestWaitingCreatedAt, other.oldestWaitingCreatedAt),
        earlier(oldestBlockedCreatedAt, other.oldestBlockedCreatedAt));
  }

  private static @Nullable Instant earlier(@Nullable Instant a, @Nullable Instant b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    return a.isBefore(b) ? a : b;
  }

  /**
   * How long a periodic reader waits after this reading before the next. The pace follows what the reading counted,
   * not how long it took: a reading that waited for a connection, or for a core, says nothing about the query's cost,
   * while the count does (the queries read every undelivered entry).
   *
   * @param interval the reader's configured interval
   * @return the interval, or a second per {@value #READ_PER_SECOND} undelivered entries (waiting, blocked and
   *     quarantined) when that is longer, but no longer than {@link #READING_PACE_LIMIT} unless the interval is
   */
  public Duration readingPace(Duration interval) {
    long entries = waiting + blocked + quarantined;
    long millis = entries >= READING_PACE_LIMIT.toMillis() * READ_PER_SECOND / 1000
        ? READING_PACE_LIMIT.toMillis() : entries * 1000 / READ_PER_SECOND;
    Duration paced = Duration.ofMillis(millis);
    return paced.compareTo(interval) > 0 ? paced : interval;
  }
}
