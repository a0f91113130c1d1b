package dev.outbox4j.internal;

import dev.outbox4j.DurationFormat;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The relay's logging. Not API.
 *
 * <p>Why failures are logged as streaks: during a database or broker outage every pass fails the same way, and a stack
 * trace per pass buries everything else in the log (and costs disk) while telling nothing new. So a streak of failures
 * is logged three times in kind: its start once, with the cause and stack trace, at WARNING; then at most one short
 * summary line per interval while it lasts (count, duration, last cause); then its end, at INFO. The interval runs on
 * the relay's clock, so tests drive it.
 *
 * <p>Every relay log line goes to the {@link System.Logger} named {@value #NAME}, a stable name for configuration
 * (the engine's classes are internal and may be renamed).
 */
final class RelayLog {
  /** The logger name of the relay engine. */
  static final String NAME = "dev.outbox4j.relay";
  static final System.Logger LOGGER = System.getLogger(NAME);
  /** How often a failure streak is summarised while it lasts. */
  static final Duration SUMMARY_INTERVAL = Duration.ofMinutes(1);
  /** How often each kind of {@link Tally} is logged at most. */
  static final Duration TALLY_INTERVAL = Duration.ofSeconds(10);

  private RelayLog() {}

  /** One kind of failure that may repeat: logged at its start, summarised while it lasts, and at its end. Thread-safe. */
  static final class Streak {
    private final String subject;
    private final Clock clock;
    private int failures;
    private @Nullable Instant since;
    private @Nullable Instant lastReport;

    /**
     * @param subject what fails, as a log line starts ("relay pass", "transport")
     * @param clock the relay's clock
     */
    Streak(String subject, Clock clock) {
      this.subject = subject;
      this.clock = clock;
    }

    /**
     * @param cause a short description of the failure
     * @param error the exception, logged with its stack trace at the start of a streak only; or {@code null}
     */
    synchronized void failed(String cause, @Nullable Throwable error) {
      Instant now = clock.instant();
      failures++;
      if (since == null || lastReport == null) {
        since = now;
        lastReport = now;
        if (error == null) {
          LOGGER.log(System.Logger.Level.WARNING, subject + " failing: " + cause);
        } else {
          LOGGER.log(System.Logger.Level.WARNING, subject + " failing: " + cause, error);
        }
        return;
      }
      if (!now.isBefore(lastReport.plus(SUMMARY_INTERVAL))) {
        lastReport = now;
        LOGGER.log(System.Logger.Level.WARNING, subject + " still failing: " + failures + " failures in "
            + DurationFormat.format(Duration.between(since, now)) + "; last: " + cause);
      }
    }

    /** Ends a streak, if one is running. */
    synchronized void recovered() {
      if (since == null) {
        return;
      }
      LOGGER.log(System.Logger.Level.INFO, subject + " recovered after " + failures + " failures in "
          + DurationFormat.format(Duration.between(since, clock.instant())));
      failures = 0;
      since = null;
      lastReport = null;
    }

    synchronized boolean isFailing() {
      return since != null;
    }
  }

  /**
   * Counts of things a relay does in the normal course that an operator should still hear of: claims taken over after
   * their lease expired, entries settled after such a doubt, batches that did not commit. Logged at INFO, one line per
   * kind at once, then at most one per {@link #TALLY_INTERVAL} (on the relay's clock) with the count since the last
   * line; a count still open when the relay stops is logged by {@link #flush}. Thread-safe.
   */
  static final class Tally {
    private final Clock clock;
    private final Map<String, Count> counts = new LinkedHashMap<>();

    /** @param clock the relay's clock */
    Tally(Clock clock) {
      this.clock = clock;
    }

    /**
     * @param kind what happened, as the log line says it after the count ("expired claims taken over")
     * @param count how many times; nothing is logged for zero
     */
    synchronized void add(String kind, int count) {
      if (count <= 0) {
        return;
      }
      Instant now = clock.instant();
      Count tally = counts.computeIfAbsent(kind, k -> new Count());
      tally.pending += count;
      if (tally.lastReport == null || !now.isBefore(tally.lastReport.plus(TALLY_INTERVAL))) {
        report(kind, tally, now);
      }
    }

    /** Logs every count not yet logged. */
    synchronized void flush() {
      Instant now = clock.instant();
      counts.forEach((kind, tally) -> {
        if (tally.pending > 0) {
          report(kind, tally, now);
        }
      });
    }

    private static void report(String kind, Count tally, Instant now) {
      String window = tally.lastReport == null ? ""
          : " in the last " + DurationFormat.format(Duration.between(tally.lastReport, now));
      LOGGER.log(System.Logger.Level.INFO, tally.pending + " " + kind + window);
      tally.pending = 0;
      tally.lastReport = now;
    }

    private static final class Count {
      long pending;
      @Nullable Instant lastReport;
    }
  }

  static String describe(Throwable error) {
    String message = error.getMessage();
    return message == null ? error.getClass().getName() : error.getClass().getName() + ": " + message;
  }
}
