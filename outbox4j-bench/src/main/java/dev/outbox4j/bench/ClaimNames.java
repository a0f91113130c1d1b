package dev.outbox4j.bench;

import dev.outbox4j.jdbc.ClaimStrategy;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How the scenarios choose and name the JDBC store's claim strategies. Everything is derived from the
 * {@link ClaimStrategy} values, so a strategy added to the enum gets its own rows (ids, titles, ratios) with no edit to
 * the bench. The reference strategy keeps the plain ids ({@code outbox4j-drain-delete}); every other strategy adds its
 * name to them ({@code outbox4j-drain-session-locks-delete}).
 */
final class ClaimNames {
  /** The strategy of the rows without a strategy in their id: leased rows, which every database supports. */
  static final ClaimStrategy REFERENCE = ClaimStrategy.LEASED_ROWS;

  private ClaimNames() {}

  /** @return every strategy other than {@link #REFERENCE}, in the enum's order */
  static List<ClaimStrategy> alternatives() {
    return Arrays.stream(ClaimStrategy.values()).filter(claims -> claims != REFERENCE).toList();
  }

  /** @return {@code ""} for the reference strategy, else the strategy as an id part: {@code "-session-locks"} */
  static String idSuffix(ClaimStrategy claims) {
    return claims == REFERENCE ? "" : "-" + claims.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** @return {@code ""} for the reference strategy, else a title part: {@code ", claims as session locks"} */
  static String titleSuffix(ClaimStrategy claims) {
    return claims == REFERENCE ? "" : ", claims as " + words(claims);
  }

  /** @return the strategy in words: {@code "session locks"} */
  static String words(ClaimStrategy claims) {
    return claims.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }
}
