package dev.outbox4j.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a scenario: the warm-up runs (unmeasured, with the same N, so the JIT and the database caches are warm; up to
 * {@value #EXTRA_WARMUPS} more while the compilers still take over {@code JIT_SETTLED_SHARE} of a warm-up's time),
 * then the measured runs, each prepared without measurement and executed between two CPU samples.
 */
final class ScenarioRunner {
  /**
   * Warm-ups beyond {@code --warmups} while the JIT is still busy: the first row to run a code path otherwise pays for
   * compiling it (the first outbox4j drain row spent 37% of its JVM CPU in the compiler threads against 9% for a later
   * row of the same relay, JFR on 2026-12-04), and looks slower than the rows after it.
   */
  static final int EXTRA_WARMUPS = 4;
  /** The compilers' share of a warm-up's elapsed time below which the JIT counts as settled. */
  static final double JIT_SETTLED_SHARE = 0.05;

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
      int warmups = 0;
      boolean compiling = true;
      while (warmups < options.warmups()
          || (warmups > 0 && compiling && warmups < options.warmups() + EXTRA_WARMUPS)) {
        int warm = scenario.messages(options.messagesFor(Math.min(messages, options.warmupMessages()),
            scenario.payloadBytes()), true);
        scenario.prepare(warm);
        long jitBefore = jitMillis();
        long started = System.nanoTime();
        scenario.execute(warm);
        compiling = (jitMillis() - jitBefore) * 1e6 > JIT_SETTLED_SHARE * (System.nanoTime() - started);
        log.print(warmups < options.warmups() ? " w" : " w+");
        log.flush();
        warmups++;
      }
      List<RunMeasurement> runs = new ArrayList<>();
      int measured = scenario.messages(options.messagesFor(messages, scenario.payloadBytes()), false);
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
          RunMeasurement run = new RunMeasurement(outcome.messages(), elapsed, usage.jvmNanos(), usage.databaseNanos(),
              outcome.operations() == 0 ? Double.NaN : outcome.operationNanos() / 1e3 / outcome.operations(),
              outcome.latencies() == null ? null : RunMeasurement.Latency.of(outcome.latencies()), jit,
              usage.logBytes());
          runs.add(run);
          log.printf(" %,.0f/s %.0fµs (JIT %.0fµs)", run.messagesPerSecond(), run.cpuMicrosPerMessage(),
              run.jitMicrosPerMessage());
          log.flush();
        }
      }
      log.println();
      return new ScenarioResult(scenario.id(), scenario.title(), runs, scenario.payloadBytes());
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
