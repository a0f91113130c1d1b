package dev.outbox4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The pictures of a run, written next to its report: the drain rates of outbox4j against the ceiling of its database
 * and gruelbox, and the commit → transport latency percentiles. A chart whose scenarios did not run is not written. The
 * colours are from the Okabe–Ito palette, which readers with any common colour-vision deficiency can tell apart; every
 * bar also carries its label and value in text.
 */
final class Charts {
  /** The file name ending of the drain chart. */
  static final String DRAIN = "drain.svg";
  /** The file name ending of the latency chart. */
  static final String LATENCY = "latency.svg";

  static final List<SvgBarChart.Series> DRAIN_SERIES = List.of(
      new SvgBarChart.Series("ceiling and raw references (hand-written JDBC)", "#999999"),
      new SvgBarChart.Series("outbox4j", "#0072B2"),
      new SvgBarChart.Series("gruelbox transaction-outbox", "#E69F00"));

  static final List<SvgBarChart.Series> LATENCY_SERIES = List.of(
      new SvgBarChart.Series("p50", "#56B4E9"),
      new SvgBarChart.Series("p90", "#009E73"),
      new SvgBarChart.Series("p99", "#E69F00"),
      new SvgBarChart.Series("max", "#D55E00"));

  private static final List<ToDoubleFunction<RunMeasurement.Latency>> PERCENTILES = List.of(
      RunMeasurement.Latency::p50Millis, RunMeasurement.Latency::p90Millis, RunMeasurement.Latency::p99Millis,
      RunMeasurement.Latency::maxMillis);

  private Charts() {}

  /**
   * @return the drain scenarios with 200-byte payloads (ceiling, outbox4j drain, gruelbox drain) as one bar each, in
   *     run order, or empty if none ran
   */
  static Optional<SvgBarChart> drain(Collection<ScenarioResult> results) {
    List<SvgBarChart.Row> rows = new ArrayList<>();
    for (ScenarioResult result : results) {
      int series = result.payloadBytes() != Payloads.SIZE ? -1 // the large messages' rates are another scale
          : result.id().startsWith("ceiling-") ? 0 : result.id().startsWith("outbox4j-drain") ? 1
          : result.id().equals("gruelbox-drain") ? 2 : -1;
      if (series >= 0) {
        rows.add(new SvgBarChart.Row(result.title(),
            List.of(bar(series, result.spread(RunMeasurement::messagesPerSecond), result.runs().size()))));
      }
    }
    return rows.isEmpty() ? Optional.empty() : Optional.of(new SvgBarChart(
        "Drain of a backlog: messages per second" + spread(rows), "messages per second (higher is better)", "%,.0f",
        DRAIN_SERIES, rows));
  }

  /** @return the latency scenarios with their p50, p90, p99 and maximum, or empty if none ran */
  static Optional<SvgBarChart> latency(Collection<ScenarioResult> results) {
    List<SvgBarChart.Row> rows = new ArrayList<>();
    for (ScenarioResult result : results) {
      if (result.hasLatency()) {
        List<SvgBarChart.Bar> bars = new ArrayList<>();
        for (int i = 0; i < PERCENTILES.size(); i++) {
          ScenarioResult.Spread spread = result.latency(PERCENTILES.get(i));
          if (!Double.isNaN(spread.median())) {
            bars.add(bar(i, spread, result.runs().size()));
          }
        }
        if (!bars.isEmpty()) {
          rows.add(new SvgBarChart.Row(result.title(), bars));
        }
      }
    }
    return rows.isEmpty() ? Optional.empty() : Optional.of(new SvgBarChart(
        "Latency from commit to the transport call" + spread(rows), "milliseconds (lower is better)", "%.1f ms",
        LATENCY_SERIES, rows));
  }

  /** @return what the title says of the bars: medians with whiskers, or a single run's figures */
  private static String spread(List<SvgBarChart.Row> rows) {
    boolean ranges = rows.stream().flatMap(row -> row.bars().stream()).anyMatch(SvgBarChart.Bar::hasRange);
    return ranges ? " (median of the runs; whisker: lowest to highest run)" : " (one run)";
  }

  private static SvgBarChart.Bar bar(int series, ScenarioResult.Spread spread, int runs) {
    return runs > 1 ? new SvgBarChart.Bar(series, spread.median(), spread.min(), spread.max())
        : new SvgBarChart.Bar(series, spread.median(), Double.NaN, Double.NaN);
  }

  /**
   * Writes each chart that has data as {@code <base>-drain.svg} and {@code <base>-latency.svg}, and removes an older
   * file of a chart that has none (so {@code latest-*.svg} never shows an earlier run).
   *
   * @return the names of the files written, in that order
   */
  static List<String> write(Collection<ScenarioResult> results, Path directory, String base) throws IOException {
    List<String> written = new ArrayList<>();
    write(drain(results), directory, base + "-" + DRAIN, written);
    write(latency(results), directory, base + "-" + LATENCY, written);
    return written;
  }

  private static void write(Optional<SvgBarChart> chart, Path directory, String name, List<String> written)
      throws IOException {
    if (chart.isPresent()) {
      Files.writeString(directory.resolve(name), chart.get().svg());
      written.add(name);
    } else {
      Files.deleteIfExists(directory.resolve(name));
    }
  }
}
