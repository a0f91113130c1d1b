package dev.outbox4j.bench;

import java.util.ArrayList;
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

  void add(ScenarioResult result) {
    results.put(result.id(), result);
  }

  @Nullable ScenarioResult get(String id) {
    return results.get(id);
  }

  String table() {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | msgs/s median | msgs/s min–max | CPU µs/msg median (JVM + PG) | CPU µs/msg min–max |"
        + " other |\n");
    out.append("| --- | ---: | ---: | ---: | ---: | --- |\n");
    for (ScenarioResult result : results.values()) {
      ScenarioResult.Spread rate = result.spread(RunMeasurement::messagesPerSecond);
      ScenarioResult.Spread cpu = result.spread(RunMeasurement::cpuMicrosPerMessage);
      ScenarioResult.Spread jvm = result.spread(RunMeasurement::jvmMicrosPerMessage);
      ScenarioResult.Spread pg = result.spread(RunMeasurement::postgresMicrosPerMessage);
      String other = "";
      ScenarioResult.Spread perOperation = result.spread(RunMeasurement::microsPerOperation);
      if (!Double.isNaN(perOperation.median())) {
        other = format("%.0f µs per claim (%.0f–%.0f)", perOperation.median(), perOperation.min(), perOperation.max());
      }
      if (result.hasLatency()) {
        other = format("latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
            result.latency(RunMeasurement.Latency::p50Millis).median(),
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

  private static final List<Target> TARGETS = List.of(
      new Target("drain, delete mode: outbox4j (1 relay, unordered) / ceiling DELETE", "outbox4j-drain-delete",
          "ceiling-delete", Metric.THROUGHPUT, true, 0.6),
      new Target("drain, keep mode: outbox4j (1 relay, unordered) / ceiling UPDATE", "outbox4j-drain-keep",
          "ceiling-update", Metric.THROUGHPUT, true, 0.6),
      new Target("drain, delete mode: outbox4j with session-lock claims (1 relay, unordered) / ceiling DELETE",
          "outbox4j-drain-session-delete", "ceiling-delete", Metric.THROUGHPUT, true, 0.6),
      new Target("drain, keep mode: outbox4j with session-lock claims (1 relay, unordered) / ceiling UPDATE",
          "outbox4j-drain-session-keep", "ceiling-update", Metric.THROUGHPUT, true, 0.6),
      new Target("drain: outbox4j with session-lock claims (1 relay, delete) / gruelbox drain",
          "outbox4j-drain-session-delete", "gruelbox-drain", Metric.THROUGHPUT, true, 10),
      new Target("ordered (1,000 keys) / unordered, session-lock claims", "outbox4j-drain-session-ordered",
          "outbox4j-drain-session-delete", Metric.THROUGHPUT, true, 0.5),
      new Target("drain, session-lock claims: 2 relays / 1 relay (informational)", "outbox4j-drain-session-2relays",
          "outbox4j-drain-session-delete", Metric.THROUGHPUT, true, Double.NaN),
      new Target("drain, delete mode: outbox4j / raw leased claim + DELETE (reference, same two commits)",
          "outbox4j-drain-delete", "ceiling-leased-delete", Metric.THROUGHPUT, true, Double.NaN),
      new Target("drain, delete mode: raw session claim (advisory locks, experiment) / ceiling DELETE",
          "ceiling-session-delete", "ceiling-delete", Metric.THROUGHPUT, true, Double.NaN),
      new Target("drain, delete mode: raw leased claim (reference) / ceiling DELETE", "ceiling-leased-delete",
          "ceiling-delete", Metric.THROUGHPUT, true, Double.NaN),
      new Target("drain, delete mode: outbox4j with synchronous_commit off (experiment) / ceiling DELETE",
          "outbox4j-drain-async-commit", "ceiling-delete", Metric.THROUGHPUT, true, Double.NaN),
      new Target("drain: outbox4j (1 relay, delete) / gruelbox drain", "outbox4j-drain-delete", "gruelbox-drain",
          Metric.THROUGHPUT, true, 10),
      new Target("drain: outbox4j 2 relays / 1 relay (informational)", "outbox4j-drain-2relays",
          "outbox4j-drain-delete", Metric.THROUGHPUT, true, Double.NaN),
      new Target("ordered (1,000 keys) / unordered", "outbox4j-drain-ordered", "outbox4j-drain-delete",
          Metric.THROUGHPUT, true, 0.5),
      new Target("write, unkeyed: CPU per transaction, outbox4j / raw outbox row", "write-outbox4j-unkeyed",
          "write-raw-outbox", Metric.CPU, false, 1.05),
      new Target("write, keyed: CPU per transaction, outbox4j / raw outbox row", "write-outbox4j-keyed",
          "write-raw-outbox", Metric.CPU, false, 1.2),
      new Target("write, keyed: CPU, raw row numbered by UPDATE of the row (experiment) / raw outbox row",
          "write-raw-keyed-update", "write-raw-outbox", Metric.CPU, false, Double.NaN),
      new Target("write, keyed: CPU, raw row numbered into a side table (experiment) / raw outbox row",
          "write-raw-keyed-side", "write-raw-outbox", Metric.CPU, false, Double.NaN),
      new Target("write overhead, unkeyed: time per transaction vs business row alone", "write-outbox4j-unkeyed",
          "write-business", Metric.TIME, false, Double.NaN),
      new Target("write overhead, keyed: time per transaction vs business row alone", "write-outbox4j-keyed",
          "write-business", Metric.TIME, false, Double.NaN),
      new Target("write overhead, unkeyed: CPU per transaction vs business row alone", "write-outbox4j-unkeyed",
          "write-business", Metric.CPU, false, Double.NaN),
      new Target("write overhead, keyed: CPU per transaction vs business row alone", "write-outbox4j-keyed",
          "write-business", Metric.CPU, false, Double.NaN),
      new Target("write overhead, raw outbox row (reference): CPU vs business row alone", "write-raw-outbox",
          "write-business", Metric.CPU, false, Double.NaN),
      new Target("write overhead, raw outbox row (reference): time vs business row alone", "write-raw-outbox",
          "write-business", Metric.TIME, false, Double.NaN),
      new Target("end to end, 4 writers: outbox4j / raw loop, msgs/s", "e2e-outbox4j", "e2e-raw",
          Metric.THROUGHPUT, true, 0.9),
      new Target("end to end, 4 writers: outbox4j / raw loop, CPU per message", "e2e-outbox4j", "e2e-raw",
          Metric.CPU, false, 1.25),
      new Target("end to end, 4 writers: outbox4j with session-lock claims / raw loop, msgs/s", "e2e-outbox4j-rows",
          "e2e-raw", Metric.THROUGHPUT, true, 0.9),
      new Target("end to end, 4 writers: outbox4j with session-lock claims / raw loop, CPU per message",
          "e2e-outbox4j-rows", "e2e-raw", Metric.CPU, false, 1.25),
      new Target("end to end, 4 writers: outbox4j / gruelbox, msgs/s (informational)", "e2e-outbox4j",
          "e2e-gruelbox", Metric.THROUGHPUT, true, Double.NaN),
      new Target("end to end, 4 writers: gruelbox / raw loop, CPU per message (informational)", "e2e-gruelbox",
          "e2e-raw", Metric.CPU, false, Double.NaN),
      new Target("latency commit → transport, p50, LISTEN/NOTIFY wake-up", "latency-outbox4j", "latency-outbox4j",
          Metric.P50, false, 10),
      new Target("latency commit → transport, p99, LISTEN/NOTIFY wake-up", "latency-outbox4j", "latency-outbox4j",
          Metric.P99, false, 50),
      new Target("latency commit → transport, p50, in-process wake-up", "latency-outbox4j-inprocess",
          "latency-outbox4j-inprocess", Metric.P50, false, 10),
      new Target("latency commit → transport, p99, in-process wake-up", "latency-outbox4j-inprocess",
          "latency-outbox4j-inprocess", Metric.P99, false, 50),
      new Target("claim cost growth: outbox4j claim at large / small backlog", "claim-outbox4j-large",
          "claim-outbox4j-small", Metric.OPERATION, false, 1.5),
      new Target("claim cost growth: outbox4j session-lock claim at large / small backlog",
          "claim-outbox4j-session-large", "claim-outbox4j-session-small", Metric.OPERATION, false, 1.5),
      new Target("claim cost growth: raw claim at large / small backlog (reference)", "claim-raw-large",
          "claim-raw-small", Metric.OPERATION, false, Double.NaN),
      broker("Kafka", "kafka", false),
      broker("Kafka", "kafka", true),
      broker("RabbitMQ", "rabbitmq", false),
      broker("RabbitMQ", "rabbitmq", true),
      broker("NATS JetStream", "nats", false),
      broker("NATS JetStream", "nats", true),
      brokerWorkers("Kafka", "kafka", false),
      brokerWorkers("Kafka", "kafka", true),
      brokerWorkers("RabbitMQ", "rabbitmq", false),
      brokerWorkers("RabbitMQ", "rabbitmq", true),
      brokerWorkers("NATS JetStream", "nats", false),
      brokerWorkers("NATS JetStream", "nats", true),
      brokerSession("Kafka", "kafka", false),
      brokerSession("Kafka", "kafka", true),
      brokerSession("RabbitMQ", "rabbitmq", false),
      brokerSession("RabbitMQ", "rabbitmq", true),
      brokerSession("NATS JetStream", "nats", false),
      brokerSession("NATS JetStream", "nats", true));

  private static Target brokerSession(String title, String name, boolean keyed) {
    String kind = keyed ? "keyed" : "unkeyed";
    return new Target("broker end to end, " + title + ", " + kind + ": outbox4j relay, session-lock claims"
        + " / JDBC + client baseline", name + "-outbox4j-" + kind + "-rows", name + "-raw-" + kind,
        Metric.THROUGHPUT, true, 0.8);
  }

  private static Target broker(String title, String name, boolean keyed) {
    String kind = keyed ? "keyed" : "unkeyed";
    return new Target("broker end to end, " + title + ", " + kind + ": outbox4j relay / JDBC + client baseline",
        name + "-outbox4j-" + kind, name + "-raw-" + kind, Metric.THROUGHPUT, true, 0.8);
  }

  private static Target brokerWorkers(String title, String name, boolean keyed) {
    String kind = keyed ? "keyed" : "unkeyed";
    return new Target("broker end to end, " + title + ", " + kind + ": outbox4j relay started with 2 workers,"
        + " session-lock claims / JDBC + client baseline (informational)",
        name + "-outbox4j-" + kind + "-2workers-session", name + "-raw-" + kind, Metric.THROUGHPUT, true, Double.NaN);
  }

  /** @return the ratios table; ratios whose scenarios did not run say so */
  String ratios() {
    StringBuilder out = new StringBuilder();
    out.append("| ratio | value | target | verdict |\n| --- | ---: | ---: | --- |\n");
    for (Target target : TARGETS) {
      ScenarioResult numerator = results.get(target.numerator());
      ScenarioResult denominator = results.get(target.denominator());
      String goal = Double.isNaN(target.threshold()) ? "—"
          : (target.atLeast() ? "≥ " : "≤ ") + format("%s", trim(target.threshold())) + " " + target.metric().unit;
      if (numerator == null || denominator == null) {
        out.append(format("| %s | not run | %s | — |\n", target.name(), goal));
        continue;
      }
      double value = value(target.metric(), numerator, denominator);
      String verdict;
      if (Double.isNaN(target.threshold())) {
        verdict = "info";
      } else if (Double.isNaN(value)) {
        verdict = "no data";
      } else {
        verdict = (target.atLeast() ? value >= target.threshold() : value <= target.threshold()) ? "**hit**"
            : "**miss**";
      }
      out.append(format("| %s | %.2f %s | %s | %s |\n", target.name(), value, target.metric().unit, goal, verdict));
    }
    return out.toString();
  }

  private static double value(Metric metric, ScenarioResult numerator, ScenarioResult denominator) {
    return switch (metric) {
      case THROUGHPUT -> numerator.messagesPerSecond() / denominator.messagesPerSecond();
      case TIME -> denominator.messagesPerSecond() / numerator.messagesPerSecond();
      case CPU -> numerator.cpuMicrosPerMessage() / denominator.cpuMicrosPerMessage();
      case OPERATION -> numerator.microsPerOperation() / denominator.microsPerOperation();
      case P50 -> numerator.latency(RunMeasurement.Latency::p50Millis).median();
      case P99 -> numerator.latency(RunMeasurement.Latency::p99Millis).median();
    };
  }

  /** Every run of every scenario, for the results file. */
  String raw() {
    StringBuilder out = new StringBuilder("| scenario id | run | msgs | seconds | msgs/s | JVM µs/msg | PG µs/msg |"
        + " µs/claim | p50 ms | p99 ms | max ms |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        + " ---: | ---: |\n");
    for (ScenarioResult result : results.values()) {
      List<RunMeasurement> runs = new ArrayList<>(result.runs());
      for (int i = 0; i < runs.size(); i++) {
        RunMeasurement run = runs.get(i);
        RunMeasurement.Latency latency = run.latency();
        out.append(format("| %s | %d | %d | %.2f | %,.0f | %.1f | %.1f | %s | %s | %s | %s |\n", result.id(), i + 1,
            run.messages(), run.elapsedNanos() / 1e9, run.messagesPerSecond(), run.jvmMicrosPerMessage(),
            run.postgresMicrosPerMessage(), number(run.microsPerOperation()),
            latency == null ? "" : number(latency.p50Millis()), latency == null ? "" : number(latency.p99Millis()),
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
