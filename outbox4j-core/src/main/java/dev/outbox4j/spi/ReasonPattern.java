package dev.outbox4j.spi;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a quarantine reason with what varies from entry to entry taken out, so that the entries that failed the
 * same way fall into one {@link QuarantineGroup}: {@code "HTTP 503 from https://erp.example/orders/17 after 1234 ms"}
 * and {@code "HTTP 503 from https://erp.example/orders/18 after 980 ms"} are both
 * {@code "HTTP # from https://erp.example/orders/# after # ms"}.
 *
 * <p>In this order: UUIDs become {@code <id>}; ISO-8601 date-times (with or without a time zone, {@code T} or a space
 * between date and time) become {@code <time>}; hexadecimal runs ({@code 0x1f}, or six or more hex digits mixing
 * letters and digits, such as an object hash or a commit id) become {@code <hex>}; every other run of digits, with its
 * decimal or thousands separators, becomes {@code #}; runs of white space become one space, and the ends are trimmed.
 * Words are kept, so the destination, the exception type and the wording of the error still tell groups apart; a
 * status code is a number too, so HTTP 500 and HTTP 503 from one endpoint fall into one group (its example shows one
 * actual reason).
 *
 * <p>The rules are part of the stores' contract: a store that groups or selects by pattern must use {@link #of}, so
 * that a pattern a dashboard shows selects exactly the entries it counted. Stateless and thread-safe.
 */
public final class ReasonPattern {
  private static final Pattern UUID = Pattern.compile(
      "\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b");
  private static final Pattern DATE_TIME = Pattern.compile(
      "\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?(?:Z|[+-]\\d{2}(?::?\\d{2})?)?)?");
  private static final Pattern HEX = Pattern.compile(
      "\\b0[xX][0-9a-fA-F]+\\b|\\b(?=[0-9a-fA-F]*\\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{6,}\\b");
  private static final Pattern NUMBER = Pattern.compile("\\d+(?:[.,]\\d+)*");
  private static final Pattern SPACE = Pattern.compile("\\s+");

  private ReasonPattern() {}

  /**
   * @param reason a quarantine reason (for a parked entry, its last error), or {@code null} for none
   * @return its pattern; the empty string for {@code null} or blank text
   */
  public static String of(@Nullable String reason) {
    if (reason == null) {
      return "";
    }
    String text = UUID.matcher(reason).replaceAll("<id>");
    text = DATE_TIME.matcher(text).replaceAll("<time>");
    text = HEX.matcher(text).replaceAll("<hex>");
    text = NUMBER.matcher(text).replaceAll("#");
    return SPACE.matcher(text).replaceAll(" ").trim();
  }
}
