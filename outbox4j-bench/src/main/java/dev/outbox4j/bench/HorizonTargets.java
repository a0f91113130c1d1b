package dev.outbox4j.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Issue 25's targets, computed from the series of one held run and its baseline (same rate, same invocation). The hold
 * window is the samples whose interval ends after the hold began and no later than it ended.
 *
 * <ol>
 *   <li>throughput: mean delivered msgs/s in the hold window, held ÷ baseline, at least 0.95 (0.90 from 2,000 msgs/s);
 *   <li>p99 commit → delivery over every message delivered in the hold window, held ÷ baseline, at most 2; the
 *       backlog back at the baseline's level (the largest backlog the baseline sampled from the hold's start to its
 *       end of run) within 60 s of the hold's end;
 *   <li>mean claim time in the hold's last minute ÷ its first minute, at most 2 (the "minute 10 vs minute
 *       2"; a hold shorter than four minutes compares its first and last quarter, and a window is one sample interval
 *       at least); bystander median latency in the
 *       hold window, held ÷ baseline, at most 1.5.
 * </ol>
 */
final class HorizonTargets {
  /**
   * @param target what is checked
   * @param measured the figure, in words
   * @param limit the limit, in words
   * @param hit whether the figure meets the limit (a figure that could not be measured is a miss)
   */
  record Check(String target, String measured, String limit, boolean hit) {}

  private HorizonTargets() {}

  static List<Check> check(HorizonRun.Series baseline, HorizonRun.Series held) {
    HorizonOptions options = held.settings().options();
    double from = HorizonOptions.minutes(options.holdFrom());
    double until = HorizonOptions.minutes(options.holdUntil());
    Predicate<HorizonSample> window = sample -> sample.minutes() > from && sample.minutes() <= until + 1e-9;
    List<Check> checks = new ArrayList<>();
    double throughputLimit = held.settings().rate() >= 2_000 ? 0.90 : 0.95;
    double throughput = mean(held, window) / mean(baseline, window);
    checks.add(new Check("1 throughput during the hold ÷ baseline", ratio(throughput), "≥ " + throughputLimit,
        throughput >= throughputLimit));
    double p99 = HorizonSample.percentileMillis(latencies(held, window), 0.99)
        / HorizonSample.percentileMillis(latencies(baseline, window), 0.99);
    checks.add(new Check("2 p99 commit → delivery during the hold ÷ baseline", ratio(p99), "≤ 2", p99 <= 2));
    double recovery = recoverySeconds(baseline, held, from, until);
    checks.add(new Check("2 backlog back to the baseline's level after the hold ends",
        Double.isNaN(recovery) ? "not within the run" : format("%.0f s", recovery), "≤ 60 s", recovery <= 60));
    // The minute 10 vs minute 2; a shorter hold compares its quarters, and a window holds one sample at least.
    double quarter = Math.max(HorizonOptions.minutes(options.sampleEvery()), Math.min(1, (until - from) / 4));
    double claims = claimMillis(held, until - quarter, until) / claimMillis(held, from, from + quarter);
    checks.add(new Check(format("3 claim time, last %.1f min of the hold ÷ first %.1f min", quarter, quarter),
        ratio(claims), "≤ 2", claims <= 2));
    double bystander = HorizonSample.percentileMillis(bystander(held, window), 0.5)
        / HorizonSample.percentileMillis(bystander(baseline, window), 0.5);
    checks.add(new Check("3 bystander query median during the hold ÷ baseline", ratio(bystander), "≤ 1.5",
        bystander <= 1.5));
    return checks;
  }

  /**
   * @return seconds from the hold's end to the first sample whose backlog is at or below the baseline's level (0 if
   *     the last sample of the hold already is), NaN if none is
   */
  static double recoverySeconds(HorizonRun.Series baseline, HorizonRun.Series held, double from, double until) {
    long level = baseline.samples().stream().filter(sample -> sample.minutes() > from)
        .mapToLong(HorizonSample::backlog).max().orElse(0);
    HorizonSample lastOfHold = null;
    for (HorizonSample sample : held.samples()) {
      if (sample.minutes() <= until + 1e-9) {
        lastOfHold = sample;
      } else if (lastOfHold != null && lastOfHold.backlog() <= level) {
        return 0;
      } else if (sample.backlog() <= level) {
        return (sample.minutes() - until) * 60;
      }
    }
    return lastOfHold != null && lastOfHold.backlog() <= level ? 0 : Double.NaN;
  }

  /** @return the mean claim time of the samples in (from, until], weighted by their claims; NaN if none */
  static double claimMillis(HorizonRun.Series series, double from, double until) {
    double total = 0;
    long count = 0;
    for (HorizonSample sample : series.samples()) {
      if (sample.minutes() > from + 1e-9 && sample.minutes() <= until + 1e-9 && sample.claims() > 0) {
        total += sample.claimMillis() * sample.claims();
        count += sample.claims();
      }
    }
    return count == 0 ? Double.NaN : total / count;
  }

  private static double mean(HorizonRun.Series series, Predicate<HorizonSample> window) {
    return series.samples().stream().filter(window).mapToDouble(HorizonSample::deliveredPerSecond).average()
        .orElse(Double.NaN);
  }

  private static long[] latencies(HorizonRun.Series series, Predicate<HorizonSample> window) {
    return HorizonSample.merged(series.samples().stream().filter(window).map(HorizonSample::latencyNanos).toList());
  }

  private static long[] bystander(HorizonRun.Series series, Predicate<HorizonSample> window) {
    return HorizonSample.merged(series.samples().stream().filter(window).map(HorizonSample::bystanderNanos).toList());
  }

  private static String ratio(double value) {
    return Double.isNaN(value) ? "not measured" : format("%.2f ×", value);
  }

  private static String format(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }
}
