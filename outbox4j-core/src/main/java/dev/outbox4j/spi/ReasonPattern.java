package dev.outbox4j.spi;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The shape of a quarantine reason with what varies from entry to entry taken out, so that the entries that failed the
 * same way fall into one {@link QuarantineGroup}: {@code "HTTP 503 from https://erp.example/orders/17 after 1234 ms"}
 * and {@code "HTTP 503 from https://erp.example/orders/18 after 980 ms"} are both
 * {@code "HTTP # from https://erp.example/orders/# after <duration>"}; {@code "gave up after 1 attempt over 16s 10ms"}
 * and {@code "gave up after 3 attempts over 16s"} are both {@code "gave up after # attempt over <duration>"}.
 *
 * <p>In this order: UUIDs become {@code <id>}; ISO-8601 date-times (with or without a time zone, {@code T} or a space
 * between date and time) become {@code <time>}; durations, however they are written (one or more counts each with a
 * unit — {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code min}, {@code h}, {@code d} and their
 * words, with or without a space: {@code 16s 10ms}, {@code 1m 2s}, {@code 1,250.5 ms}, {@code 3 seconds},
 * {@code <1ms}, ISO-8601's {@code PT16.01S}) become {@code <duration>}; hexadecimal runs ({@code 0x1f}, or six or
 * more hex digits mixing letters and digits, such as an object hash or a commit id) become {@code <hex>}; every other
 * run of digits, with its decimal or thousands separators, becomes {@code #}, and an English plural right after it
 * becomes singular ({@code # attempts} and {@code # attempt}, {@code # entries} and {@code # entry}); runs of white
 * space become one space, and the ends are trimmed. Words are kept, so the destination, the exception type and the
 * wording of the error still tell groups apart; a status code is a number too, so HTTP 500 and HTTP 503 from one
 * endpoint fall into one group (its example shows one actual reason). No reason at all (none recorded, or blank) is
 * {@value #NO_REASON}: a pattern is never empty.
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
  private static final String COUNT = "\\d+(?:[.,]\\d+)*";
  private static final String UNIT = "(?:ns|nanos(?:econds?)?|us|µs|micros(?:econds?)?|ms|millis(?:econds?)?"
      + "|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)";
  private static final Pattern DURATION = Pattern.compile("(?<![\\w.,])(?:<\\s?)?" + COUNT + "\\s?" + UNIT + "\\b"
      + "(?:,?\\s*" + COUNT + "\\s?" + UNIT + "\\b)*"
      + "|\\bP(?:\\d+D)?T(?=\\d)(?:\\d+H)?(?:\\d+M)?(?:\\d+(?:\\.\\d+)?S)?\\b");
  private static final Pattern NUMBER = Pattern.compile(COUNT);
  /**
   * A word right after a count: its plural ending is dropped ({@code ies} becomes {@code y}; {@code ss} is kept),
   * from a stem of three letters up, so that {@code # is} and {@code # was} stay as they are.
   */
  private static final Pattern PLURAL = Pattern.compile("(# )(\\p{L}{3,}?)(ies|(?<!s)s)\\b");
  private static final Pattern SPACE = Pattern.compile("\\s+");

  /** The pattern of an entry with no reason recorded. */
  public static final String NO_REASON = "(no reason recorded)";

  private ReasonPattern() {}

  /**
   * @param reason a quarantine reason (for a parked entry, its last error), or {@code null} for none
   * @return its pattern; {@value #NO_REASON} for {@code null} or blank text, never empty
   */
  public static String of(@Nullable String reason) {
    if (reason == null || reason.isBlank()) {
      return NO_REASON;
    }
    String text = UUID.matcher(reason).replaceAll("<id>");
    text = DATE_TIME.matcher(text).replaceAll("<time>");
    text = DURATION.matcher(text).replaceAll("<duration>");
    text = HEX.matcher(text).replaceAll("<hex>");
    text = NUMBER.matcher(text).replaceAll("#");
    text = PLURAL.matcher(text).replaceAll(match -> match.group(1) + match.group(2)
        + (match.group(3).equals("ies") ? "y" : ""));
    return SPACE.matcher(text).replaceAll(" ").trim();
  }
}
