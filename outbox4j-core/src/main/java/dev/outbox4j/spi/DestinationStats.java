package dev.outbox4j.spi;

import java.util.Objects;

/**
 * One destination's share of an outbox ({@link OutboxStore#destinationStats}): its waiting, blocked, in-flight and
 * quarantined entries and their ages, with the meanings of {@link OutboxStats}. An entry is counted under its own
 * destination, also when what blocks it is an entry of the same key bound elsewhere.
 *
 * <p>Immutable and thread-safe.
 *
 * @param destination the destination, as messages name it; not blank. A row the store cannot read (blank destination)
 *     is counted under {@value #UNREADABLE}
 * @param stats its entries
 */
public record DestinationStats(String destination, OutboxStats stats) {
  /** The most rows one {@link OutboxStore#destinationStats} call returns. */
  public static final int MAX_LIMIT = 1000;

  /** The name under which entries with a blank destination (rows the store cannot read) are counted. */
  public static final String UNREADABLE = "(unreadable)";

  /** @throws IllegalArgumentException if the destination is blank */
  public DestinationStats {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(stats, "stats");
    if (destination.isBlank()) {
      throw new IllegalArgumentException("destination must not be blank");
    }
  }

  /**
   * @param limit a requested number of rows
   * @throws IllegalArgumentException if it is outside 1..{@value #MAX_LIMIT}
   */
  public static void checkLimit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ", was " + limit);
    }
  }
}
