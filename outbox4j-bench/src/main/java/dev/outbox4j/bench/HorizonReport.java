package dev.outbox4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The report of a horizon or soak invocation: per run, its series as a Markdown table and as CSV (every table and
 * index in a second CSV), line charts over time of every series with the hold shaded, and the target checks hit or
 * miss. Files go beside the Markdown under the same stem.
 */
final class HorizonReport {
  /** Line colours, Okabe–Ito: the baseline grey, then the held runs; relations cycle through the palette. */
  static final List<String> COLOURS =
      List.of("#999999", "#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#000000");

  /** One chart: a series of every run. */
  record Metric(String file, String title, String unit, ToDoubleFunction<HorizonSample> value) {}

  private HorizonReport() {}

  /** @param horizonUnit what the probe's horizon age counts */
  static List<Metric> metrics(String horizonUnit, boolean deadTuples) {
    List<Metric> metrics = new ArrayList<>(List.of(
        new Metric("delivered", "Delivered messages per second", "messages per second",
            HorizonSample::deliveredPerSecond),
        new Metric("p50", "Commit → delivery, p50", "milliseconds", HorizonSample::p50Millis),
        new Metric("p99", "Commit → delivery, p99", "milliseconds", HorizonSample::p99Millis),
        new Metric("claim", "Claim time (mean of the claims that returned entries)", "milliseconds",
            HorizonSample::claimMillis),
        new Metric("backlog", "Backlog (committed, not yet delivered)", "messages", sample -> sample.backlog()),
        new Metric("size", "Size of the outbox tables and indexes together", "MiB",
            sample -> sample.bytes() / 1048576.0),
        new Metric("horizon", "Clean-up horizon: " + horizonUnit, horizonUnit, sample -> sample.horizon().age()),
        new Metric("bystander", "Bystander query, p50", "milliseconds", HorizonSample::bystanderP50Millis)));
    if (deadTuples) {
      metrics.add(5, new Metric("dead", "Dead tuples of the outbox tables together (n_dead_tup)", "tuples",
          sample -> sample.deadTuples()));
    }
    return metrics;
  }

  /** @return the series of every run at one rate as a chart, the hold shaded */
  static SvgLineChart chart(Metric metric, List<HorizonRun.Series> runs, String subtitle) {
    List<SvgLineChart.Line> lines = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      List<SvgLineChart.Point> points = new ArrayList<>();
      for (HorizonSample sample : runs.get(i).samples()) {
        double value = metric.value().applyAsDouble(sample);
        points.add(new SvgLineChart.Point(sample.minutes(), value < 0 ? Double.NaN : value));
      }
      lines.add(new SvgLineChart.Line(runs.get(i).settings().name(), COLOURS.get(i % COLOURS.size()), points));
    }
    HorizonOptions options = runs.get(0).settings().options();
    boolean anyHold = runs.stream().anyMatch(run -> run.settings().hold() != null);
    SvgLineChart.Band band = anyHold ? new SvgLineChart.Band(HorizonOptions.minutes(options.holdFrom()),
        HorizonOptions.minutes(options.holdUntil()), "transaction held") : null;
    return new SvgLineChart(metric.title() + subtitle, "minutes since the start of the run", metric.unit(), lines,
        band);
  }

  /** @return the size of every outbox table and index of one run over time */
  static SvgLineChart relationsChart(HorizonRun.Series run, String subtitle) {
    List<String> names = run.samples().stream().flatMap(sample -> sample.relations().stream())
        .map(HorizonProbe.Relation::name).distinct().toList();
    List<SvgLineChart.Line> lines = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      List<SvgLineChart.Point> points = new ArrayList<>();
      for (HorizonSample sample : run.samples()) {
        points.add(new SvgLineChart.Point(sample.minutes(), sample.relations().stream()
            .filter(relation -> relation.name().equals(name)).mapToDouble(relation -> relation.bytes() / 1048576.0)
            .findFirst().orElse(Double.NaN)));
      }
      // More relations than colours: the second round of colours is dashed.
      lines.add(new SvgLineChart.Line(name.replace(HorizonProbe.PREFIX, ""), COLOURS.get((i + 1) % COLOURS.size()),
          (i + 1) / COLOURS.size() % 2 == 1, points));
    }
    HorizonOptions options = run.settings().options();
    SvgLineChart.Band band = run.settings().hold() == null ? null : new SvgLineChart.Band(
        HorizonOptions.minutes(options.holdFrom()), HorizonOptions.minutes(options.holdUntil()), "transaction held");
    return new SvgLineChart("Size of every outbox table and index, " + run.settings().name() + subtitle,
        "minutes since the start of the run", "MiB", lines, band);
  }

  /** @return the run's samples as a Markdown table */
  static String table(HorizonRun.Series run, String horizonUnit) {
    StringBuilder out = new StringBuilder();
    out.append("| min | held | written/s | delivered/s | p50 ms | p99 ms | claim ms | claims | backlog | dead tuples"
        + " | MiB | ").append(horizonUnit).append(" | oldest tx s | bystander p50 ms | p99 ms |\n");
    out.append("|---:|:-:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (HorizonSample s : run.samples()) {
      out.append(format("| %.2f | %s | %.0f | %.0f | %.1f | %.1f | %.2f | %d | %d | %s | %.1f | %.0f | %.0f | %.2f"
              + " | %.2f |\n", s.minutes(), s.held() ? "●" : "", s.writtenPerSecond(), s.deliveredPerSecond(),
          s.p50Millis(), s.p99Millis(), s.claimMillis(), s.claims(), s.backlog(),
          s.deadTuples() < 0 ? "—" : Long.toString(s.deadTuples()), s.bytes() / 1048576.0, s.horizon().age(),
          s.horizon().oldestTransactionSeconds(), s.bystanderP50Millis(), s.bystanderP99Millis()));
    }
    return out.toString();
  }

  /** @return every run's samples, one line each */
  static String csv(List<HorizonRun.Series> runs) {
    StringBuilder out = new StringBuilder("run,rate,minutes,held,written_per_s,delivered_per_s,p50_ms,p99_ms,claim_ms,"
        + "claims,backlog,dead_tuples,bytes,horizon_age,oldest_transaction_s,bystander_p50_ms,bystander_p99_ms\n");
    for (HorizonRun.Series run : runs) {
      for (HorizonSample s : run.samples()) {
        out.append(format("%s,%d,%.4f,%b,%.1f,%.1f,%.3f,%.3f,%.3f,%d,%d,%d,%d,%.0f,%.1f,%.3f,%.3f\n",
            run.settings().name(), run.settings().rate(), s.minutes(), s.held(), s.writtenPerSecond(),
            s.deliveredPerSecond(), s.p50Millis(), s.p99Millis(), s.claimMillis(), s.claims(), s.backlog(),
            s.deadTuples(), s.bytes(), s.horizon().age(), s.horizon().oldestTransactionSeconds(),
            s.bystanderP50Millis(), s.bystanderP99Millis()));
      }
    }
    return out.toString();
  }

  /** @return every table and index of every sample, one line each */
  static String relationsCsv(List<HorizonRun.Series> runs) {
    StringBuilder out = new StringBuilder("run,rate,minutes,relation,kind,dead_tuples,bytes\n");
    for (HorizonRun.Series run : runs) {
      for (HorizonSample s : run.samples()) {
        for (HorizonProbe.Relation relation : s.relations()) {
          out.append(format("%s,%d,%.4f,%s,%s,%d,%d\n", run.settings().name(), run.settings().rate(), s.minutes(),
              relation.name(), relation.index() ? "index" : "table", relation.deadTuples(), relation.bytes()));
        }
      }
    }
    return out.toString();
  }

  /** @return the checks as a Markdown table */
  static String checks(List<HorizonTargets.Check> checks) {
    StringBuilder out = new StringBuilder("| target | measured | limit | |\n| --- | --- | --- | --- |\n");
    for (HorizonTargets.Check check : checks) {
      out.append("| ").append(check.target()).append(" | ").append(check.measured()).append(" | ")
          .append(check.limit()).append(" | ").append(check.hit() ? "hit" : "**miss**").append(" |\n");
    }
    return out.toString();
  }

  /** @return the run's stream checks: lost, duplicated, reordered, restarts */
  static String stream(HorizonRun.Series run) {
    return format("%s: %,d written, %,d lost, %,d delivered twice, %,d reordered, %d relay restarts%s%n",
        run.settings().name(), run.written(), run.lost(), run.duplicates(), run.reordered(), run.restarts(),
        run.activity().isEmpty() ? "" : "; " + run.activity());
  }

  /** Writes an SVG file and notes its name. */
  static void write(SvgLineChart chart, Path directory, String name, List<String> written) throws IOException {
    Files.writeString(directory.resolve(name), chart.svg());
    written.add(name);
  }

  static String format(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }
}
