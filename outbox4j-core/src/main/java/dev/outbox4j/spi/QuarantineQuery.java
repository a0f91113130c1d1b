package dev.outbox4j.spi;

import org.jspecify.annotations.Nullable;

/**
 * One page of {@link OutboxStore#quarantined}: entries in sequence order, after a cursor.
 *
 * @param limit the page size, 1 to {@value #MAX_LIMIT}
 * @param afterSequence return entries whose sequence is greater than this; {@code null} for the first page
 */
public record QuarantineQuery(int limit, @Nullable Long afterSequence) {
  /** Largest page. */
  public static final int MAX_LIMIT = 1000;

  /** @throws IllegalArgumentException if limit is outside 1..{@value #MAX_LIMIT} */
  public QuarantineQuery {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ", was " + limit);
    }
  }

  /**
   * @param limit the page size
   * @return the first page
   */
  public static QuarantineQuery first(int limit) {
    return new QuarantineQuery(limit, null);
  }

  /**
   * @param sequence the last sequence of the previous page
   * @return the page after it, same size
   */
  public QuarantineQuery after(long sequence) {
    return new QuarantineQuery(limit, sequence);
  }
}
