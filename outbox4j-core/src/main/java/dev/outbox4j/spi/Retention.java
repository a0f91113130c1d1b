package dev.outbox4j.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a store does with delivered entries: delete them on delivery (the default: the table stays small and the claim
 * query never wades through history), or keep them for a period, for audit or replay, and purge them in bounded
 * batches with {@link OutboxStore#purgeDelivered}.
 *
 * <p>Immutable and thread-safe.
 */
public final class Retention {
  private static final Retention DELETE = new Retention(null);

  private final @Nullable Duration keep;

  private Retention(@Nullable Duration keep) {
    this.keep = keep;
  }

  /** @return delete each entry as soon as its delivery is confirmed */
  public static Retention deleteOnDelivery() {
    return DELETE;
  }

  /**
   * @param period how long delivered entries are kept; positive
   * @return keep delivered entries for that period
   * @throws IllegalArgumentException if the period is not positive
   */
  public static Retention keepFor(Duration period) {
    Objects.requireNonNull(period, "period");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("retention period must be positive, was " + period);
    }
    return new Retention(period);
  }

  /** @return the keep period, or empty when delivered entries are deleted on delivery */
  public Optional<Duration> keepPeriod() {
    return Optional.ofNullable(keep);
  }

  /** @return {@code true} when delivered entries are deleted on delivery */
  public boolean deletesOnDelivery() {
    return keep == null;
  }

  @Override
  public String toString() {
    return keep == null ? "Retention[deleteOnDelivery]" : "Retention[keepFor " + keep + "]";
  }
}
