package dev.outbox4j.bench;

import dev.outbox4j.jdbc.ClaimStrategy;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How the scenarios choose and name the JDBC store's claim strategies. Everything is derived from the
 * {@link ClaimStrategy} values, so a strategy added to the enum gets its own rows (ids, titles, ratios) with no edit to
 * the bench. The reference strategy (PostgreSQL's default) keeps the plain ids ({@code outbox4j-drain-delete}); every
 * other strategy adds its name to them ({@code outbox4j-drain-leased-rows-delete}).
 */
final class ClaimNames {
  /** The strategy of the rows without a strategy in their id: PostgreSQL's default, leased batches. */
  static final ClaimStrategy REFERENCE = ClaimStrategy.LEASED_BATCHES;

  private ClaimNames() {}

  /** @return every strategy other than {@link #REFERENCE}, in the enum's order */
  static List<ClaimStrategy> alternatives() {
    return Arrays.stream(ClaimStrategy.values()).filter(claims -> claims != REFERENCE).toList();
  }

  /** @return {@code ""} for the reference strategy, else the strategy as an id part: {@code "-leased-rows"} */
  static String idSuffix(ClaimStrategy claims) {
    return claims == REFERENCE ? "" : "-" + claims.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** @return {@code ""} for the reference strategy, else a title part: {@code ", claims as leased rows"} */
  static String titleSuffix(ClaimStrategy claims) {
    return claims == REFERENCE ? "" : ", claims as " + words(claims);
  }

  /** @return the strategy in words: {@code "leased rows"} */
  static String words(ClaimStrategy claims) {
    return claims.name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }
}
