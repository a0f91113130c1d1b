package dev.outbox4j.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The {@code horizon} and {@code soak} commands (issue 25): steady keyed writers, one relay, sampled over time.
 *
 * <pre>
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="horizon"                  (12 min × 3 runs)
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="horizon --rate 2000"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="horizon --db mariadb"
 * mvn -q -pl outbox4j-bench -am test-compile exec:java -Dexec.args="horizon --horizon-minutes 1 --hold-from 0.2
 *     --hold-until 0.6 --rate 200 --sample-seconds 5"                                        (a smoke run)
 * mvn -q -pl outbox4j-bench -am test-compile -Psoak                                          (30 min, the soak)
 * </pre>
 *
 * <p>{@code horizon}: per rate, a baseline run and one run per held transaction, in that order, each on freshly
 * created tables; then the target checks of each held run against the baseline. {@code soak}: one run with relay
 * restarts and kept-and-purged delivered entries; then the claim-time slope, the size growth and the stream checks.
 * Both write {@code bench-results/horizon-<db>-<UTC time>.md} (or {@code soak-…}), its CSV files and its charts, and
 * the same under {@code latest-horizon-<db>} (or {@code latest-soak-<db>}).
 */
final class HorizonBench {
  private HorizonBench() {}

  /** @return the exit code: 0 after a run or help, {@link BenchMain#BAD_ARGUMENTS} on a bad argument */
  static int run(String[] args, boolean soak, PrintStream out, PrintStream err) throws Exception {
    if (BenchOptions.helpRequested(args)) {
      out.print(HorizonOptions.usage(soak));
      return 0;
    }
    HorizonOptions options;
    try {
      options = HorizonOptions.parse(args, soak);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.print(HorizonOptions.usage(soak));
      return BenchMain.BAD_ARGUMENTS;
    }
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    String started = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE_TIME).substring(0, 19);
    String kind = soak ? "soak" : "horizon";
    HorizonProbe probe = HorizonProbe.of(options);
    String version;
    try (Connection connection = probe.connect()) {
      version = probe.version(connection);
    }
    StringBuilder report = new StringBuilder();
    report.append("# outbox4j ").append(kind).append(" run, ").append(started).append(" UTC\n\n")
        .append("`").append(kind).append(" ").append(String.join(" ", args)).append("`\n\n")
        .append(HorizonReport.format("%s; %d CPUs; load average before: %s. Each run %.2f min, samples every %d s,"
                + " %d writers, %d keys%s%s.%n%n", version, Runtime.getRuntime().availableProcessors(),
            BenchMain.loadAverage(), HorizonOptions.minutes(options.length()), options.sampleEvery().toSeconds(),
            options.writers(), Outbox4jTables.KEYS,
            soak ? "" : HorizonReport.format(", transaction held from minute %.2f to %.2f",
                HorizonOptions.minutes(options.holdFrom()), HorizonOptions.minutes(options.holdUntil())),
            soak ? HorizonReport.format(", relay restarted every %.2f min, delivered entries kept %.2f min",
                HorizonOptions.minutes(options.restartEvery()), HorizonOptions.minutes(options.keepDelivered()))
                : ""));
    List<HorizonRun.Series> all = new ArrayList<>();
    Path directory = Path.of("bench-results");
    Files.createDirectories(directory);
    String stem = kind + "-" + options.db() + "-" + started.replace(":", "").replace("-", "").replace("T", "-");
    List<String> charts = new ArrayList<>();
    for (int rate : options.rates()) {
      List<HorizonRun.Series> runs = new ArrayList<>();
      runs.add(measure(probe, new HorizonRun.Settings(soak ? "soak" : "baseline", null, rate, options), out));
      for (HorizonOptions.HoldKind hold : options.holds()) {
        runs.add(measure(probe, new HorizonRun.Settings("held: " + hold.words, hold, rate, options), out));
      }
      all.addAll(runs);
      String subtitle = HorizonReport.format(", %,d msgs/s", rate);
      report.append("## ").append(HorizonReport.format("%,d msgs/s", rate)).append("\n\n");
      if (soak) {
        report.append(soakFigures(runs.get(0))).append("\n");
      }
      for (HorizonRun.Series held : runs.subList(1, runs.size())) {
        List<HorizonTargets.Check> checks = HorizonTargets.check(runs.get(0), held);
        report.append("### Targets, ").append(held.settings().name()).append("\n\n")
            .append(HorizonReport.checks(checks)).append("\n");
        checks.forEach(check -> out.printf("%s, %s: %s %s (limit %s)%n", held.settings().name(), check.target(),
            check.measured(), check.hit() ? "hit" : "MISS", check.limit()));
      }
      report.append("### Stream\n\n");
      runs.forEach(run -> report.append("- ").append(HorizonReport.stream(run)));
      report.append("\n");
      boolean deadTuples = options.db().equals("postgresql");
      for (HorizonReport.Metric metric : HorizonReport.metrics(probe.horizonUnit, deadTuples)) {
        HorizonReport.write(HorizonReport.chart(metric, runs, subtitle), directory,
            stem + "-" + rate + "-" + metric.file() + ".svg", charts);
      }
      for (int i = 0; i < runs.size(); i++) {
        HorizonReport.write(HorizonReport.relationsChart(runs.get(i), subtitle), directory,
            stem + "-" + rate + "-relations-" + i + ".svg", charts);
      }
      for (HorizonRun.Series run : runs) {
        report.append("### Series, ").append(run.settings().name()).append("\n\n")
            .append(HorizonReport.table(run, probe.horizonUnit)).append("\n");
      }
    }
    report.append("Load average after: ").append(BenchMain.loadAverage()).append("\n\n## Charts\n\n");
    charts.forEach(chart -> report.append("![").append(chart).append("](").append(chart).append(")\n\n"));
    Files.writeString(directory.resolve(stem + ".md"), report);
    Files.writeString(directory.resolve(stem + ".csv"), HorizonReport.csv(all));
    Files.writeString(directory.resolve(stem + "-relations.csv"), HorizonReport.relationsCsv(all));
    String latest = "latest-" + kind + "-" + options.db();
    for (String chart : charts) {
      Files.copy(directory.resolve(chart), directory.resolve(chart.replace(stem, latest)),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    Files.writeString(directory.resolve(latest + ".md"), report.toString().replace(stem, latest));
    out.println();
    out.println("written to " + directory.resolve(stem + ".md").toAbsolutePath() + " (CSV and charts beside it)");
    return 0;
  }

  private static HorizonRun.Series measure(HorizonProbe probe, HorizonRun.Settings settings, PrintStream out)
      throws Exception {
    out.printf("%s at %,d msgs/s: %.2f min ...%n", settings.name(), settings.rate(),
        HorizonOptions.minutes(settings.options().length()));
    HorizonRun.Series series = HorizonRun.run(probe, settings);
    out.print(HorizonReport.stream(series));
    return series;
  }

  /** @return the soak's figures: the claim-time slope, the size at each third of the run, the size slope at the end */
  static String soakFigures(HorizonRun.Series run) {
    List<HorizonSample> samples = run.samples();
    List<HorizonSample> claimed = samples.stream().filter(sample -> sample.claims() > 0).toList();
    double claimSlope = slope(claimed, HorizonSample::claimMillis);
    double meanClaim = HorizonTargets.claimMillis(run, -1, Double.MAX_VALUE);
    List<HorizonSample> lastHalf = samples.subList(samples.size() / 2, samples.size());
    double sizeSlope = slope(lastHalf, sample -> sample.bytes() / 1048576.0);
    StringBuilder out = new StringBuilder();
    out.append(HorizonReport.format("- claim time: mean %.2f ms, slope %.4f ms per minute (least squares over every"
        + " sample with claims; %.1f %% of the mean per 10 minutes)%n", meanClaim, claimSlope,
        claimSlope * 10 / meanClaim * 100));
    out.append("- size of the outbox tables and indexes together:");
    for (int third = 1; third <= 3; third++) {
      HorizonSample at = samples.get(Math.max(0, samples.size() * third / 3 - 1));
      out.append(HorizonReport.format(" %.1f MiB at minute %.1f;", at.bytes() / 1048576.0, at.minutes()));
    }
    out.append(HorizonReport.format(" slope over the second half %.3f MiB per minute%n", sizeSlope));
    return out.toString();
  }

  /** @return the least-squares slope of {@code value} over the samples' minutes; NaN with fewer than two */
  static double slope(List<HorizonSample> samples, ToDoubleFunction<HorizonSample> value) {
    int n = samples.size();
    if (n < 2) {
      return Double.NaN;
    }
    double meanX = samples.stream().mapToDouble(HorizonSample::minutes).average().orElse(0);
    double meanY = samples.stream().mapToDouble(value).average().orElse(0);
    double covariance = 0;
    double variance = 0;
    for (HorizonSample sample : samples) {
      covariance += (sample.minutes() - meanX) * (value.applyAsDouble(sample) - meanY);
      variance += (sample.minutes() - meanX) * (sample.minutes() - meanX);
    }
    return covariance / variance;
  }
}
