package dev.outbox4j.bench;

import org.jspecify.annotations.Nullable;

/**
 * One measured run.
 *
 * @param messages messages processed
 * @param elapsedNanos wall time of the measured part
 * @param jvmCpuNanos this JVM's CPU in that time
 * @param databaseCpuNanos the PostgreSQL processes' CPU in that time
 * @param microsPerOperation the mean time of a timed operation, or NaN
 * @param latency commit-to-transport latency percentiles, or {@code null}
 * @param jitMillis the JIT compilers' time in that time ({@code CompilationMXBean#getTotalCompilationTime}, elapsed
 *     time of the compiler threads, counted in {@code jvmCpuNanos} as CPU): a large share means the row is paying for
 *     compiling code it, or a later row, runs, not for running it
 * @param logBytes the bytes the database server wrote to its write-ahead log in that time (server-wide: other
 *     clients' writes included)
 */
record RunMeasurement(
    long messages,
    long elapsedNanos,
    long jvmCpuNanos,
    long databaseCpuNanos,
    double microsPerOperation,
    @Nullable Latency latency,
    long jitMillis,
    long logBytes) {

  /** A run without a log figure. */
  RunMeasurement(long messages, long elapsedNanos, long jvmCpuNanos, long databaseCpuNanos, double microsPerOperation,
      @Nullable Latency latency, long jitMillis) {
    this(messages, elapsedNanos, jvmCpuNanos, databaseCpuNanos, microsPerOperation, latency, jitMillis, 0);
  }

  /**
   * @param p50Millis median
   * @param p90Millis 90th percentile
   * @param p99Millis 99th percentile
   * @param maxMillis worst
   */
  record Latency(double p50Millis, double p90Millis, double p99Millis, double maxMillis) {
    static Latency of(long[] sortedNanos) {
      if (sortedNanos.length == 0) {
        return new Latency(Double.NaN, Double.NaN, Double.NaN, Double.NaN);
      }
      return new Latency(percentile(sortedNanos, 0.50) / 1e6, percentile(sortedNanos, 0.90) / 1e6,
          percentile(sortedNanos, 0.99) / 1e6,
          sortedNanos[sortedNanos.length - 1] / 1e6);
    }

    private static long percentile(long[] sorted, double fraction) {
      int index = (int) Math.ceil(fraction * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
  }

  double messagesPerSecond() {
    return messages / (elapsedNanos / 1e9);
  }

  double cpuMicrosPerMessage() {
    return (jvmCpuNanos + databaseCpuNanos) / 1e3 / messages;
  }

  /** @return the JIT compilers' time per message, µs (elapsed time of the compiler threads) */
  double jitMicrosPerMessage() {
    return jitMillis * 1e3 / messages;
  }

  double jvmMicrosPerMessage() {
    return jvmCpuNanos / 1e3 / messages;
  }

  /** @return the server's write-ahead log bytes per message, KiB */
  double logKibPerMessage() {
    return logBytes / 1024.0 / messages;
  }

  double databaseMicrosPerMessage() {
    return databaseCpuNanos / 1e3 / messages;
  }
}
