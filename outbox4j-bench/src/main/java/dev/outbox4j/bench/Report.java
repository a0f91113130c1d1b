package dev.outbox4j.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Turns the results into the markdown the run prints and saves: the table of scenarios, then the ratios the issue
 * asks for, each with its target and whether this run hit it.
 */
final class Report {
  private final Map<String, ScenarioResult> results = new LinkedHashMap<>();
  private final String database;
  private final boolean listNotRun;

  /** A report of a PostgreSQL run: every ratio listed, those whose scenarios did not run as "not run". */
  Report() {
    this("PG", true);
  }

  /**
   * @param database the database's short name, in the CPU column's heading ({@code PG}, {@code MariaDB})
   * @param listNotRun whether ratios whose scenarios did not run are listed as "not run", or left out (a MariaDB run,
   *     where most of them have no MariaDB form)
   */
  Report(String database, boolean listNotRun) {
    this.database = database;
    this.listNotRun = listNotRun;
  }

  void add(ScenarioResult result) {
    results.put(result.id(), result);
  }

  /** @return every result, in the order the scenarios ran */
  Collection<ScenarioResult> results() {
    return List.copyOf(results.values());
  }

  @Nullable ScenarioResult get(String id) {
    return results.get(id);
  }

  String table() {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | msgs/s median | msgs/s min–max | CPU µs/msg median (JVM + " + database
        + ") | CPU µs/msg min–max | other |\n");
    out.append("| --- | ---: | ---: | ---: | ---: | --- |\n");
    for (ScenarioResult result : results.values()) {
      ScenarioResult.Spread rate = result.spread(RunMeasurement::messagesPerSecond);
      ScenarioResult.Spread cpu = result.spread(RunMeasurement::cpuMicrosPerMessage);
      ScenarioResult.Spread jvm = result.spread(RunMeasurement::jvmMicrosPerMessage);
      ScenarioResult.Spread pg = result.spread(RunMeasurement::databaseMicrosPerMessage);
      String other = "";
      ScenarioResult.Spread perOperation = result.spread(RunMeasurement::microsPerOperation);
      if (!Double.isNaN(perOperation.median())) {
        other = format("%.0f µs per claim (%.0f–%.0f)", perOperation.median(), perOperation.min(), perOperation.max());
      }
      if (result.payloadBytes() != Payloads.SIZE) {
        other = format("%.1f MB/s of payload; CPU %.2f µs per KiB (JVM %.2f + %s %.2f); %s %.1f KiB/msg",
            rate.median() * result.payloadBytes() / 1e6, cpu.median() * 1024 / result.payloadBytes(),
            jvm.median() * 1024 / result.payloadBytes(), database, pg.median() * 1024 / result.payloadBytes(),
            database.equals("PG") ? "WAL" : "redo log", result.spread(RunMeasurement::logKibPerMessage).median());
      }
      if (result.hasLatency()) {
        other = format("latency p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
            result.latency(RunMeasurement.Latency::p50Millis).median(),
            result.latency(RunMeasurement.Latency::p90Millis).median(),
            result.latency(RunMeasurement.Latency::p99Millis).median(),
            result.latency(RunMeasurement.Latency::maxMillis).median());
      }
      out.append(format("| %s | %,.0f | %,.0f–%,.0f | %.1f (%.1f + %.1f) | %.1f–%.1f | %s |\n", result.title(),
          rate.median(), rate.min(), rate.max(), cpu.median(), jvm.median(), pg.median(), cpu.min(), cpu.max(), other));
    }
    return out.toString();
  }

  /** A ratio the issue asks for and its target. */
  private record Target(String name, String numerator, String denominator, Metric metric, boolean atLeast,
      double threshold) {}

  /** How a ratio or value is computed from two results. */
  private enum Metric {
    /** numerator msgs/s ÷ denominator msgs/s */
    THROUGHPUT("×"),
    /** time per message multiplier: denominator msgs/s ÷ numerator msgs/s */
    TIME("×"),
    /** numerator CPU/msg ÷ denominator CPU/msg */
    CPU("×"),
    /** numerator JVM CPU/msg ÷ denominator JVM CPU/msg */
    JVM_CPU("×"),
    /** numerator µs per operation ÷ denominator µs per operation */
    OPERATION("×"),
    /** the numerator's p50 latency, ms */
    P50("ms"),
    /** the numerator's p99 latency, ms */
    P99("ms");

    final String unit;

    Metric(String unit) {
      this.unit = unit;
    }
  }

  private static final List<Target> TARGETS = targets();

  /**
   * The ratios in the order the report lists them. The rows that depend on the claim strategy are made for every
   * {@link dev.outbox4j.jdbc.ClaimStrategy} value ({@link ClaimNames}), so a new strategy is reported without an edit.
   */
  private static List<Target> targets() {
    List<Target> targets = new ArrayList<>();
    for (dev.outbox4j.jdbc.ClaimStrategy claims : dev.outbox4j.jdbc.ClaimStrategy.values()) {
      String drain = "outbox4j-drain" + ClaimNames.idSuffix(claims);
      String with = ClaimNames.titleSuffix(claims);
      targets.add(new Target("drain, delete mode: outbox4j (1 relay, unordered" + with + ") / ceiling DELETE",
          drain + "-delete", "ceiling-delete", Metric.THROUGHPUT, true, 0.7));
      targets.add(new Target("drain, keep mode: outbox4j (1 relay, unordered" + with + ") / ceiling UPDATE",
          drain + "-keep", "ceiling-update", Metric.THROUGHPUT, true, 0.7));
      targets.add(new Target("drain: outbox4j (1 relay, delete" + with + ") / gruelbox drain", drain + "-delete",
          "gruelbox-drain", Metric.THROUGHPUT, true, 10));
      targets.add(new Target("ordered (1,000 keys) / unordered" + with, drain + "-ordered", drain + "-delete",
          Metric.THROUGHPUT, true, 0.5));
      targets.add(new Target("drain" + with + ": 2 relays / 1 relay (informational)", drain + "-2relays",
          drain + "-delete", Metric.THROUGHPUT, true, Double.NaN));
    }
    // The relay and the messages are the same, only the claim differs: the default's JVM CPU per message running away
    // from the other strategy's is what the 2026-12-03 runs showed (31-34.5 µs against 12-13.8 µs) and nothing caught.
    for (dev.outbox4j.jdbc.ClaimStrategy claims : ClaimNames.alternatives()) {
      targets.add(new Target("drain, delete mode: JVM CPU per message, outbox4j (1 relay, default claims) / claims as "
          + ClaimNames.words(claims), "outbox4j-drain-delete", "outbox4j-drain" + ClaimNames.idSuffix(claims)
          + "-delete", Metric.JVM_CPU, false, 1.3));
    }
    targets.add(new Target("drain, delete mode: outbox4j / raw leased claim + DELETE (reference, same two commits)",
        "outbox4j-drain-delete", "ceiling-leased-delete", Metric.THROUGHPUT, true, Double.NaN));
    targets.add(new Target("drain, delete mode: raw session claim (advisory locks, experiment) / ceiling DELETE",
        "ceiling-session-delete", "ceiling-delete", Metric.THROUGHPUT, true, Double.NaN));
    targets.add(new Target("drain, delete mode: raw leased claim (reference) / ceiling DELETE", "ceiling-leased-delete",
        "ceiling-delete", Metric.THROUGHPUT, true, Double.NaN));
    targets.add(new Target("drain, delete mode: outbox4j with synchronous_commit off (experiment) / ceiling DELETE",
        "outbox4j-drain-async-commit", "ceiling-delete", Metric.THROUGHPUT, true, Double.NaN));
    for (String mode : new String[] {"delete", "keep"}) {
      targets.add(new Target("drain, " + mode + " mode: outbox4j with one commit per batch (experiment) / as shipped",
          "outbox4j-drain-one-commit-" + mode, "outbox4j-drain-" + mode, Metric.THROUGHPUT, true, Double.NaN));
    }
    for (String mode : new String[] {"delete", "keep"}) {
      targets.add(new Target("drain, " + mode + " mode: outbox4j with statements prepared (option) / as shipped",
          "outbox4j-drain-prepared-" + mode, "outbox4j-drain-" + mode, Metric.THROUGHPUT, true, Double.NaN));
      targets.add(new Target("drain, " + mode + " mode: outbox4j with statements prepared (option) / ceiling "
          + (mode.equals("delete") ? "DELETE" : "UPDATE"), "outbox4j-drain-prepared-" + mode,
          mode.equals("delete") ? "ceiling-delete" : "ceiling-update", Metric.THROUGHPUT, true, Double.NaN));
    }
    targets.add(new Target("write, unkeyed: CPU per transaction, outbox4j / raw outbox row", "write-outbox4j-unkeyed",
        "write-raw-outbox", Metric.CPU, false, 1.05));
    targets.add(new Target("write, keyed: CPU per transaction, outbox4j / raw outbox row", "write-outbox4j-keyed",
        "write-raw-outbox", Metric.CPU, false, 1.2));
    targets.add(new Target("write, keyed, numbered at insert (opt-in): CPU per transaction, outbox4j / raw outbox row",
        "write-outbox4j-keyed-at-insert", "write-raw-outbox", Metric.CPU, false, 1.2));
    targets.add(new Target("write, keyed: CPU, raw row numbered by UPDATE of the row (experiment) / raw outbox row",
        "write-raw-keyed-update", "write-raw-outbox", Metric.CPU, false, Double.NaN));
    targets.add(new Target("write, keyed: CPU, raw row numbered into a side table (experiment) / raw outbox row",
        "write-raw-keyed-side", "write-raw-outbox", Metric.CPU, false, Double.NaN));
    targets.add(new Target("write, unkeyed: CPU, outbox4j's table by plain SQL (MariaDB: the store's schema) / raw"
        + " outbox row (informational)", "write-plain-sql-4w", "write-raw-outbox", Metric.CPU, false, Double.NaN));
    targets.add(new Target("write, unkeyed: CPU, outbox4j's table by plain SQL, insert trigger dropped (MariaDB"
        + " experiment) / raw outbox row", "write-plain-sql-no-insert-trigger-4w", "write-raw-outbox", Metric.CPU,
        false, Double.NaN));
    for (String kind : List.of("unkeyed", "keyed")) {
      targets.add(new Target("write overhead, " + kind + ": time per transaction vs business row alone",
          "write-outbox4j-" + kind, "write-business", Metric.TIME, false, Double.NaN));
      targets.add(new Target("write overhead, " + kind + ": CPU per transaction vs business row alone",
          "write-outbox4j-" + kind, "write-business", Metric.CPU, false, Double.NaN));
    }
    targets.add(new Target("write overhead, raw outbox row (reference): CPU vs business row alone", "write-raw-outbox",
        "write-business", Metric.CPU, false, Double.NaN));
    targets.add(new Target("write overhead, raw outbox row (reference): time vs business row alone",
        "write-raw-outbox", "write-business", Metric.TIME, false, Double.NaN));
    for (dev.outbox4j.jdbc.ClaimStrategy claims : dev.outbox4j.jdbc.ClaimStrategy.values()) {
      String e2e = "e2e-outbox4j" + ClaimNames.idSuffix(claims);
      String with = ClaimNames.titleSuffix(claims);
      targets.add(new Target("end to end, 4 writers: outbox4j" + with + " / raw loop, msgs/s", e2e, "e2e-raw",
          Metric.THROUGHPUT, true, 0.95));
      targets.add(new Target("end to end, 4 writers: outbox4j" + with + " / raw loop, CPU per message", e2e,
          "e2e-raw", Metric.CPU, false, 1.2));
    }
    targets.add(new Target("end to end, 4 writers: outbox4j / gruelbox, msgs/s (informational)", "e2e-outbox4j",
        "e2e-gruelbox", Metric.THROUGHPUT, true, Double.NaN));
    targets.add(new Target("end to end, 4 writers: gruelbox / raw loop, CPU per message (informational)",
        "e2e-gruelbox", "e2e-raw", Metric.CPU, false, Double.NaN));
    for (int size : Payloads.LARGE_SIZES) {
      String kind = Payloads.words(size) + " payloads";
      String suffix = Payloads.idSuffix(size);
      targets.add(new Target("large messages, " + kind + ": drain, outbox4j (1 relay, delete) / ceiling DELETE with the"
          + " same payloads (no target)", "outbox4j-drain-delete" + suffix, "ceiling-delete" + suffix,
          Metric.THROUGHPUT, true, Double.NaN));
      targets.add(new Target("large messages, " + kind + ": drain, CPU per message, outbox4j / ceiling DELETE"
          + " (no target)", "outbox4j-drain-delete" + suffix, "ceiling-delete" + suffix, Metric.CPU, false,
          Double.NaN));
      targets.add(new Target("large messages, " + kind + ": end to end, 4 writers, outbox4j / raw loop, msgs/s"
          + " (no target)", "e2e-outbox4j" + suffix, "e2e-raw" + suffix, Metric.THROUGHPUT, true, Double.NaN));
      targets.add(new Target("large messages, " + kind + ": end to end, 4 writers, outbox4j / raw loop, CPU per"
          + " message (no target)", "e2e-outbox4j" + suffix, "e2e-raw" + suffix, Metric.CPU, false, Double.NaN));
    }
    for (String wakeUp : List.of("LISTEN/NOTIFY", "in-process")) {
      String id = wakeUp.equals("in-process") ? "latency-outbox4j-inprocess" : "latency-outbox4j";
      targets.add(new Target("latency commit → transport, p50, " + wakeUp + " wake-up", id, id, Metric.P50, false,
          10));
      targets.add(new Target("latency commit → transport, p99, " + wakeUp + " wake-up", id, id, Metric.P99, false,
          50));
    }
    targets.add(new Target("latency commit → transport, p50, plain SQL inserts woken by the notify trigger",
        "latency-outbox4j-trigger", "latency-outbox4j-trigger", Metric.P50, false, 10));
    targets.add(new Target("latency commit → transport, p99, plain SQL inserts woken by the notify trigger",
        "latency-outbox4j-trigger", "latency-outbox4j-trigger", Metric.P99, false, 50));
    for (String id : List.of("latency-outbox4j-prepared", "latency-outbox4j-trigger-prepared")) {
      String how = id.contains("trigger") ? "plain SQL inserts woken by the notify trigger" : "LISTEN/NOTIFY wake-up";
      targets.add(new Target("latency commit → transport, p50, " + how + ", statements prepared", id, id, Metric.P50,
          false, 10));
      targets.add(new Target("latency commit → transport, p99, " + how + ", statements prepared", id, id, Metric.P99,
          false, 50));
    }
    for (int writers : new int[] {1, 4}) {
      String with = BenchMain.plainSqlWriteId(writers, true);
      String without = BenchMain.plainSqlWriteId(writers, false);
      targets.add(new Target("notify trigger, " + writers + " writer(s): CPU per transaction, with / without", with,
          without, Metric.CPU, false, Double.NaN));
      targets.add(new Target("notify trigger, " + writers + " writer(s): time per transaction, with / without", with,
          without, Metric.TIME, false, Double.NaN));
    }
    for (dev.outbox4j.jdbc.ClaimStrategy claims : dev.outbox4j.jdbc.ClaimStrategy.values()) {
      String claim = "claim-outbox4j" + ClaimNames.idSuffix(claims);
      targets.add(new Target("claim cost growth: outbox4j claim" + ClaimNames.titleSuffix(claims)
          + " at large / small backlog", claim + "-large", claim + "-small", Metric.OPERATION, false, 1.3));
    }
    targets.add(new Target("claim cost growth: raw claim at large / small backlog (reference)", "claim-raw-large",
        "claim-raw-small", Metric.OPERATION, false, Double.NaN));
    List<String[]> brokers = List.of(new String[] {"Kafka", "kafka"}, new String[] {"RabbitMQ", "rabbitmq"},
        new String[] {"NATS JetStream", "nats"});
    for (dev.outbox4j.jdbc.ClaimStrategy claims : dev.outbox4j.jdbc.ClaimStrategy.values()) {
      for (String[] broker : brokers) {
        for (String kind : List.of("unkeyed", "keyed")) {
          targets.add(new Target("broker end to end, " + broker[0] + ", " + kind + ": outbox4j relay"
              + ClaimNames.titleSuffix(claims) + " / JDBC + client baseline",
              broker[1] + "-outbox4j-" + kind + ClaimNames.idSuffix(claims), broker[1] + "-raw-" + kind,
              Metric.THROUGHPUT, true, 0.8));
        }
      }
    }
    for (String receiver : List.of("keepalive", "close")) {
      for (String kind : List.of("unkeyed", "keyed")) {
        targets.add(new Target("webhooks end to end, receiver " + (receiver.equals("close")
            ? "closing each connection" : "keeping connections alive") + ", " + kind
            + ": outbox4j relay / JDK HttpClient baseline", "http-" + receiver + "-outbox4j-" + kind,
            "http-" + receiver + "-raw-" + kind, Metric.THROUGHPUT, true, 0.8));
      }
    }
    for (String kind : List.of("unkeyed", "keyed")) {
      targets.add(new Target("Kafka, " + kind + ": transactional mode / idempotent transport",
          "kafka-tx-outbox4j-" + kind, "kafka-outbox4j-" + kind, Metric.THROUGHPUT, true, 0.85));
    }
    for (String kind : List.of("unkeyed", "keyed")) {
      targets.add(new Target("Kafka, " + kind + ": transactional mode started with 2 workers / idempotent transport"
          + " (informational)", "kafka-tx-outbox4j-" + kind + "-2workers", "kafka-outbox4j-" + kind,
          Metric.THROUGHPUT, true, Double.NaN));
    }
    targets.add(new Target("Kafka Connect, keyed: outbox4j source connector, exactly once, tasks.max=1 / JDBC + client"
        + " baseline", "kafka-connect-outbox4j-keyed", "kafka-raw-keyed", Metric.THROUGHPUT, true, 0.8));
    targets.add(new Target("Kafka Connect, keyed: outbox4j source connector, exactly once, tasks.max=2 / JDBC + client"
        + " baseline (informational)", "kafka-connect-outbox4j-keyed-2tasks", "kafka-raw-keyed", Metric.THROUGHPUT,
        true, Double.NaN));
    targets.add(new Target("Kafka Connect, keyed: outbox4j source connector, tasks.max=1 / the relay's transactional"
        + " mode (informational)", "kafka-connect-outbox4j-keyed", "kafka-tx-outbox4j-keyed", Metric.THROUGHPUT, true,
        Double.NaN));
    targets.add(new Target("Kafka, a backlog over 3 keys: transactional mode (runs of a key) / transactional unkeyed",
        "kafka-tx-outbox4j-3keys", "kafka-tx-outbox4j-unkeyed", Metric.THROUGHPUT, true, 0.5));
    targets.add(new Target("Kafka, a backlog over 3 keys: idempotent (one entry of a key in flight) / transactional"
        + " unkeyed (reference)", "kafka-outbox4j-3keys", "kafka-tx-outbox4j-unkeyed", Metric.THROUGHPUT, true,
        Double.NaN));
    for (dev.outbox4j.jdbc.ClaimStrategy claims : ClaimNames.alternatives()) {
      for (String[] broker : brokers) {
        for (String kind : List.of("unkeyed", "keyed")) {
          targets.add(new Target("broker end to end, " + broker[0] + ", " + kind + ": outbox4j relay started with"
              + " 2 workers" + ClaimNames.titleSuffix(claims) + " / JDBC + client baseline (informational)",
              broker[1] + "-outbox4j-" + kind + "-2workers" + ClaimNames.idSuffix(claims),
              broker[1] + "-raw-" + kind, Metric.THROUGHPUT, true, Double.NaN));
        }
      }
    }
    return List.copyOf(targets);
  }

  /** @return the ratios table; ratios whose scenarios did not run say so */
  String ratios() {
    StringBuilder out = new StringBuilder();
    out.append("| ratio | value | run-to-run range | target | verdict |\n| --- | ---: | ---: | ---: | --- |\n");
    for (Target target : TARGETS) {
      ScenarioResult numerator = results.get(target.numerator());
      ScenarioResult denominator = results.get(target.denominator());
      String goal = Double.isNaN(target.threshold()) ? "—"
          : (target.atLeast() ? "≥ " : "≤ ") + format("%s", trim(target.threshold())) + " " + target.metric().unit;
      if ((numerator == null || denominator == null) && !listNotRun) {
        continue;
      }
      if (numerator == null || denominator == null) {
        out.append(format("| %s | not run | — | %s | — |\n", target.name(), goal));
        continue;
      }
      ScenarioResult.Spread spread = value(target.metric(), numerator, denominator);
      double value = spread.median();
      String verdict;
      if (Double.isNaN(target.threshold())) {
        verdict = "info";
      } else if (Double.isNaN(value)) {
        verdict = "no data";
      } else {
        verdict = (target.atLeast() ? value >= target.threshold() : value <= target.threshold()) ? "**hit**"
            : "**miss**";
      }
      String range = Double.isNaN(spread.min()) || spread.min() == spread.max() ? "—"
          : format("%.2f–%.2f", spread.min(), spread.max());
      out.append(format("| %s | %.2f %s | %s | %s | %s |\n", target.name(), value, target.metric().unit, range, goal,
          verdict));
    }
    return out.toString();
  }

  /**
   * @return the ratio of the medians, and as its range the lowest and highest the runs allow: the numerator's lowest
   *     run over the denominator's highest, and the other way round (a latency is the numerator's own spread)
   */
  private static ScenarioResult.Spread value(Metric metric, ScenarioResult numerator, ScenarioResult denominator) {
    return switch (metric) {
      case THROUGHPUT -> ratio(numerator.spread(RunMeasurement::messagesPerSecond),
          denominator.spread(RunMeasurement::messagesPerSecond));
      case TIME -> ratio(denominator.spread(RunMeasurement::messagesPerSecond),
          numerator.spread(RunMeasurement::messagesPerSecond));
      case CPU -> ratio(numerator.spread(RunMeasurement::cpuMicrosPerMessage),
          denominator.spread(RunMeasurement::cpuMicrosPerMessage));
      case JVM_CPU -> ratio(numerator.spread(RunMeasurement::jvmMicrosPerMessage),
          denominator.spread(RunMeasurement::jvmMicrosPerMessage));
      case OPERATION -> ratio(numerator.spread(RunMeasurement::microsPerOperation),
          denominator.spread(RunMeasurement::microsPerOperation));
      case P50 -> numerator.latency(RunMeasurement.Latency::p50Millis);
      case P99 -> numerator.latency(RunMeasurement.Latency::p99Millis);
    };
  }

  private static ScenarioResult.Spread ratio(ScenarioResult.Spread numerator, ScenarioResult.Spread denominator) {
    return new ScenarioResult.Spread(numerator.median() / denominator.median(), numerator.min() / denominator.max(),
        numerator.max() / denominator.min());
  }

  /** Every run of every scenario, for the results file. */
  String raw() {
    StringBuilder out = new StringBuilder("| scenario id | run | msgs | seconds | msgs/s | JVM µs/msg | of which JIT |"
        + " " + database + " µs/msg | log KiB/msg | µs/claim | p50 ms | p90 ms | p99 ms | max ms |\n"
        + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (ScenarioResult result : results.values()) {
      List<RunMeasurement> runs = new ArrayList<>(result.runs());
      for (int i = 0; i < runs.size(); i++) {
        RunMeasurement run = runs.get(i);
        RunMeasurement.Latency latency = run.latency();
        out.append(format("| %s | %d | %d | %.2f | %,.0f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s |\n",
            result.id(), i + 1, run.messages(), run.elapsedNanos() / 1e9, run.messagesPerSecond(),
            run.jvmMicrosPerMessage(), run.jitMicrosPerMessage(), run.databaseMicrosPerMessage(),
            run.logKibPerMessage(),
            number(run.microsPerOperation()),
            latency == null ? "" : number(latency.p50Millis()), latency == null ? "" : number(latency.p90Millis()),
            latency == null ? "" : number(latency.p99Millis()),
            latency == null ? "" : number(latency.maxMillis())));
      }
    }
    return out.toString();
  }

  private static String number(double value) {
    return Double.isNaN(value) ? "" : format("%.1f", value);
  }

  private static String trim(double value) {
    return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
  }

  static String metric(ToDoubleFunction<ScenarioResult> metric, @Nullable ScenarioResult result) {
    return result == null ? "—" : format("%.1f", metric.applyAsDouble(result));
  }

  private static String format(String pattern, Object... args) {
    return String.format(Locale.ROOT, pattern, args);
  }
}
