package dev.outbox4j.bench;

import java.util.List;

/** Fixed measurements for the tests of the report and the charts: runs of one second with a chosen outcome. */
final class Figures {
  private Figures() {}

  /** @return a one-second run that moved {@code messagesPerSecond} messages, with no CPU and no latency */
  static RunMeasurement rate(long messagesPerSecond) {
    return new RunMeasurement(messagesPerSecond, 1_000_000_000L, 0, 0, Double.NaN, null, 0);
  }

  /** @return a one-second run of 1,000 messages with these latency percentiles */
  static RunMeasurement latency(RunMeasurement.Latency latency) {
    return new RunMeasurement(1_000, 1_000_000_000L, 0, 0, Double.NaN, latency, 0);
  }

  /** @return a scenario of two runs, at {@code lowRate} and {@code highRate} messages per second */
  static ScenarioResult twoRuns(String id, String title, long lowRate, long highRate) {
    return new ScenarioResult(id, title, List.of(rate(lowRate), rate(highRate)));
  }
}
