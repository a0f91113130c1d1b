package dev.outbox4j;

import java.time.Duration;
import java.util.Objects;

/**
 * Durations as people read them in reasons, logs and command output: {@code 850ms}, {@code 3m 7s}, {@code 2h 5m},
 * {@code 1d 4h}, instead of ISO-8601 ({@code PT3M7S}).
 *
 * <p>At most the two largest units are shown, the rest truncated (not rounded): {@code 2h 5m 59s} reads {@code 2h 5m};
 * a unit that is zero is left out ({@code 2h}, not {@code 2h 0m}). Units: {@code d} (24 hours), {@code h}, {@code m},
 * {@code s}, {@code ms}. A single unit ({@code 5s}, {@code 250ms}, {@code 24h}) is also how the relay application's
 * configuration writes a duration. Below a millisecond: {@code <1ms}; zero: {@code 0s}; negative: a leading
 * {@code -}.
 *
 * <p>Stateless and thread-safe.
 */
public final class DurationFormat {
  private static final long[] UNIT_MILLIS = {86_400_000L, 3_600_000L, 60_000L, 1_000L, 1L};
  private static final String[] UNIT_NAMES = {"d", "h", "m", "s", "ms"};

  private DurationFormat() {}

  /**
   * @param duration the duration; not {@code null}
   * @return it in words, for example {@code 3m 7s}
   * @throws NullPointerException if {@code duration} is {@code null}
   */
  public static String format(Duration duration) {
    Objects.requireNonNull(duration, "duration");
    if (duration.isZero()) {
      return "0s";
    }
    if (duration.isNegative()) {
      return "-" + format(duration.negated());
    }
    long millis;
    try {
      millis = duration.toMillis();
    } catch (ArithmeticException tooLong) {
      return duration.toDays() + "d";
    }
    if (millis == 0) {
      return "<1ms";
    }
    StringBuilder text = new StringBuilder();
    int shown = 0;
    for (int unit = 0; unit < UNIT_MILLIS.length && shown < 2; unit++) {
      long count = millis / UNIT_MILLIS[unit];
      millis %= UNIT_MILLIS[unit];
      if (shown == 0 && count == 0) {
        continue;
      }
      shown++;
      if (count != 0) {
        text.append(text.length() == 0 ? "" : " ").append(count).append(UNIT_NAMES[unit]);
      }
    }
    return text.toString();
  }
}
