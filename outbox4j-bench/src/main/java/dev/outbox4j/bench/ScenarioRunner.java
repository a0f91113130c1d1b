package dev.outbox4j.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a scenario: the warm-up runs (unmeasured, with the same N, so the JIT and the database caches are warm), then
 * the measured runs, each prepared without measurement and executed between two CPU samples.
 */
final class ScenarioRunner {
  private final BenchOptions options;
  private final CpuMeter cpu;
  private final PrintStream log;

  ScenarioRunner(BenchOptions options, CpuMeter cpu, PrintStream log) {
    this.options = options;
    this.cpu = cpu;
    this.log = log;
  }

  ScenarioResult run(Scenario scenario) throws Exception {
    return run(scenario, options.messages());
  }

  ScenarioResult run(Scenario scenario, int messages) throws Exception {
    log.printf("%-40s", scenario.id());
    log.flush();
    try (scenario) {
      for (int i = 0; i < options.warmups(); i++) {
        int warm = scenario.messages(Math.min(messages, options.warmupMessages()), true);
        scenario.prepare(warm);
        scenario.execute(warm);
        log.print(" w");
        log.flush();
      }
      List<RunMeasurement> runs = new ArrayList<>();
      int measured = scenario.messages(messages, false);
      try (ScenarioProfile profile = ScenarioProfile.start(scenario.id())) {
        for (int i = 0; i < options.runs(); i++) {
          scenario.prepare(measured);
          System.gc();
          CpuMeter.Sample before = cpu.sample();
          long jitBefore = jitMillis();
          long start = System.nanoTime();
          Outcome outcome = scenario.execute(measured);
          long elapsed = System.nanoTime() - start;
          CpuMeter.Usage usage = cpu.since(before);
          long jit = jitMillis() - jitBefore;
          RunMeasurement run = new RunMeasurement(outcome.messages(), elapsed, usage.jvmNanos(), usage.postgresNanos(),
              outcome.operations() == 0 ? Double.NaN : outcome.operationNanos() / 1e3 / outcome.operations(),
              outcome.latencies() == null ? null : RunMeasurement.Latency.of(outcome.latencies()), jit);
          runs.add(run);
          log.printf(" %,.0f/s %.0fµs (JIT %.0fµs)", run.messagesPerSecond(), run.cpuMicrosPerMessage(),
              run.jitMicrosPerMessage());
          log.flush();
        }
      }
      log.println();
      return new ScenarioResult(scenario.id(), scenario.title(), runs);
    }
  }

  /** @return the JIT compilers' accumulated time, ms, or 0 where the JVM does not report it */
  private static long jitMillis() {
    var compilation = java.lang.management.ManagementFactory.getCompilationMXBean();
    return compilation != null && compilation.isCompilationTimeMonitoringSupported()
        ? compilation.getTotalCompilationTime() : 0;
  }

  static long[] sorted(long[] values) {
    long[] copy = values.clone();
    Arrays.sort(copy);
    return copy;
  }
}
