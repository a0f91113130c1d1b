package dev.outbox4j.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The measured runs of one scenario and their median, minimum and maximum.
 *
 * @param id the scenario id
 * @param title the row label
 * @param runs the measured runs, at least one
 * @param payloadBytes the bytes of each message's payload
 */
record ScenarioResult(String id, String title, List<RunMeasurement> runs, int payloadBytes) {

  /** A result of 200-byte messages. */
  ScenarioResult(String id, String title, List<RunMeasurement> runs) {
    this(id, title, runs, Payloads.SIZE);
  }

  ScenarioResult {
    runs = List.copyOf(runs);
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("a result needs at least one run");
    }
  }

  /** Median, minimum and maximum of one metric over the runs. */
  record Spread(double median, double min, double max) {}

  Spread spread(ToDoubleFunction<RunMeasurement> metric) {
    double[] values = runs.stream().mapToDouble(metric).filter(v -> !Double.isNaN(v)).sorted().toArray();
    if (values.length == 0) {
      return new Spread(Double.NaN, Double.NaN, Double.NaN);
    }
    return new Spread(median(values), values[0], values[values.length - 1]);
  }

  static double median(double[] sorted) {
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  double messagesPerSecond() {
    return spread(RunMeasurement::messagesPerSecond).median();
  }

  double cpuMicrosPerMessage() {
    return spread(RunMeasurement::cpuMicrosPerMessage).median();
  }

  double microsPerOperation() {
    return spread(RunMeasurement::microsPerOperation).median();
  }

  boolean hasLatency() {
    return runs.stream().anyMatch(run -> run.latency() != null);
  }

  Spread latency(ToDoubleFunction<RunMeasurement.Latency> percentile) {
    return spread(run -> run.latency() == null ? Double.NaN : percentile.applyAsDouble(Objects.requireNonNull(
        run.latency())));
  }

  @Override
  public String toString() {
    return id + Arrays.toString(runs.stream().mapToDouble(RunMeasurement::messagesPerSecond).toArray());
  }
}
