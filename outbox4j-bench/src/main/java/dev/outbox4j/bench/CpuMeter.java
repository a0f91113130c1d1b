package dev.outbox4j.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Measures the CPU a scenario costs: this JVM's process CPU plus the CPU of the PostgreSQL server processes that
 * served it.
 *
 * <p>Why it reads {@code /proc}: CPU per message is steadier than messages per second on a shared machine, and the
 * database's share of the work is as real as the JVM's. PostgreSQL runs one process per connection, so the meter sums
 * {@code utime + stime} of every {@code postgres} process on the machine, minus the client backends that belong to
 * other applications (other agents testing on the same server): a process counts when it is an auxiliary process
 * (WAL writer, checkpointer, background writer, autovacuum, the postmaster) or a client backend whose
 * {@code application_name} is ours. A process is identified by pid and start time, so a recycled pid is not mistaken
 * for an old one. The scenarios keep their pool connections open across the measurement: a backend that exits before
 * the second sample takes its CPU with it, and such CPU is not counted (short-lived autovacuum workers are lost the
 * same way). Resolution is the kernel's clock tick (usually 10 ms).
 *
 * <p>Not thread-safe: sample from one thread. Owns the monitoring connection it is given.
 */
final class CpuMeter implements AutoCloseable {
  private static final double NANOS_PER_TICK = 1_000_000_000.0 / clockTicksPerSecond();

  private final Connection monitor;
  private final String applicationName;

  CpuMeter(Connection monitor, String applicationName) throws SQLException {
    this.monitor = monitor;
    this.monitor.setAutoCommit(true);
    this.applicationName = applicationName;
  }

  /** One reading of the counters. */
  record Sample(long jvmCpuNanos, Map<ProcessKey, Long> postgresTicks) {}

  /** A process identity that survives pid reuse. */
  record ProcessKey(long pid, long startTime) {}

  /**
   * CPU spent between two samples.
   *
   * @param jvmNanos this JVM's process CPU
   * @param postgresNanos the counted PostgreSQL processes' CPU
   */
  record Usage(long jvmNanos, long postgresNanos) {
    long totalNanos() {
      return jvmNanos + postgresNanos;
    }
  }

  Sample sample() {
    return new Sample(jvmCpuNanos(), postgresTicks());
  }

  /**
   * @param before the earlier sample
   * @return the CPU spent since then by this JVM and by the PostgreSQL processes counted now
   */
  Usage since(Sample before) {
    long jvm = jvmCpuNanos() - before.jvmCpuNanos();
    Set<Long> foreign = foreignBackends();
    long ticks = 0;
    for (Map.Entry<ProcessKey, Long> now : postgresTicks().entrySet()) {
      if (foreign.contains(now.getKey().pid())) {
        continue;
      }
      ticks += now.getValue() - before.postgresTicks().getOrDefault(now.getKey(), 0L);
    }
    return new Usage(jvm, Math.round(ticks * NANOS_PER_TICK));
  }

  private static long jvmCpuNanos() {
    var bean = ManagementFactory.getOperatingSystemMXBean();
    if (bean instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    throw new IllegalStateException("process CPU time is not available on this JVM");
  }

  /** Client backends of other applications, whose CPU is not ours. */
  private Set<Long> foreignBackends() {
    Set<Long> pids = new HashSet<>();
    try (Statement statement = monitor.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT pid, coalesce(application_name, '') FROM pg_stat_activity WHERE backend_type = 'client backend'")) {
      while (rows.next()) {
        if (!rows.getString(2).startsWith(applicationName)) {
          pids.add(rows.getLong(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list PostgreSQL backends", e);
    }
    return pids;
  }

  private static Map<ProcessKey, Long> postgresTicks() {
    Map<ProcessKey, Long> ticks = new HashMap<>();
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path process : processes) {
        String stat;
        try {
          stat = Files.readString(process.resolve("stat"));
        } catch (IOException gone) {
          continue;
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < 0 || !stat.substring(open + 1, close).equals("postgres")) {
          continue;
        }
        // Fields after the command name, 0-based from "state": utime is field 14 of the line, stime 15, starttime 22.
        String[] fields = stat.substring(close + 2).split(" ");
        long utime = Long.parseLong(fields[11]);
        long stime = Long.parseLong(fields[12]);
        long start = Long.parseLong(fields[19]);
        ticks.put(new ProcessKey(Long.parseLong(stat.substring(0, open).trim()), start), utime + stime);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc", e);
    }
    return ticks;
  }

  private static long clockTicksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(getconf.getInputStream().readAllBytes()).trim();
      getconf.waitFor();
      return Long.parseLong(out);
    } catch (IOException | NumberFormatException e) {
      return 100;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 100;
    }
  }

  @Override
  public void close() throws SQLException {
    monitor.close();
  }
}
