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
import org.jspecify.annotations.Nullable;

/**
 * Measures the CPU a scenario costs: this JVM's process CPU plus the CPU of the database server that served it, the
 * PostgreSQL processes or, on MariaDB, the server's threads.
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
 * <p>MariaDB is one process with a thread per connection ({@code thread_handling = one-thread-per-connection}) and its
 * own background threads (InnoDB's purge, page cleaner, I/O). The meter sums {@code utime + stime} of every thread of
 * the {@code mariadbd} (or {@code mysqld}) process, from {@code /proc/<pid>/task/<tid>/stat}, minus the threads serving
 * other clients' connections: {@code information_schema.PROCESSLIST.TID} names each connection's thread, and a
 * connection is ours when its client port ({@code HOST}) is the local port of a socket this JVM holds
 * ({@code /proc/self/fd} against {@code /proc/self/net/tcp}). So, as on PostgreSQL, it counts our connections' threads
 * plus the shared background threads.
 *
 * <p>Not thread-safe: sample from one thread. Owns the monitoring connection it is given.
 */
final class CpuMeter implements AutoCloseable {
  private static final double NANOS_PER_TICK = 1_000_000_000.0 / clockTicksPerSecond();

  private final Connection monitor;
  private final String applicationName;
  private final boolean mariaDb;

  /** A meter of PostgreSQL's processes. */
  CpuMeter(Connection monitor, String applicationName) throws SQLException {
    this(monitor, applicationName, false);
  }

  /**
   * @param monitor a connection to the database, owned by the meter
   * @param applicationName the prefix of our connections' {@code application_name} (PostgreSQL)
   * @param mariaDb whether the server is MariaDB (its threads) or PostgreSQL (its processes)
   */
  CpuMeter(Connection monitor, String applicationName, boolean mariaDb) throws SQLException {
    this.monitor = monitor;
    this.monitor.setAutoCommit(true);
    this.applicationName = applicationName;
    this.mariaDb = mariaDb;
  }

  /** One reading of the counters. */
  record Sample(long jvmCpuNanos, Map<ProcessKey, Long> serverTicks, long logPosition) {}

  /** A process (or thread) identity that survives pid reuse. */
  record ProcessKey(long pid, long startTime) {}

  /**
   * CPU spent between two samples.
   *
   * @param jvmNanos this JVM's process CPU
   * @param databaseNanos the counted database processes' (or threads') CPU
   * @param logBytes the bytes the server wrote to its write-ahead log (PostgreSQL's WAL, InnoDB's redo log) in that
   *     time, by every client: the server's, not only ours
   */
  record Usage(long jvmNanos, long databaseNanos, long logBytes) {
    long totalNanos() {
      return jvmNanos + databaseNanos;
    }
  }

  Sample sample() {
    return new Sample(jvmCpuNanos(), serverTicks(), logPosition());
  }

  /** @return the server's write-ahead log position in bytes: PostgreSQL's WAL insert LSN, InnoDB's current LSN */
  private long logPosition() {
    try (Statement statement = monitor.createStatement();
        ResultSet rows = statement.executeQuery(mariaDb
            ? "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_LSN_CURRENT'"
            : "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")) {
      return rows.next() ? new java.math.BigDecimal(rows.getString(1)).longValue() : 0;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the server's log position", e);
    }
  }

  private Map<ProcessKey, Long> serverTicks() {
    return mariaDb ? mariaDbTicks() : postgresTicks();
  }

  /**
   * @param before the earlier sample
   * @return the CPU spent since then by this JVM and by the PostgreSQL processes counted now
   */
  Usage since(Sample before) {
    long jvm = jvmCpuNanos() - before.jvmCpuNanos();
    Set<Long> foreign = mariaDb ? foreignConnectionThreads() : foreignBackends();
    long ticks = 0;
    for (Map.Entry<ProcessKey, Long> now : serverTicks().entrySet()) {
      if (foreign.contains(now.getKey().pid())) {
        continue;
      }
      ticks += now.getValue() - before.serverTicks().getOrDefault(now.getKey(), 0L);
    }
    return new Usage(jvm, Math.round(ticks * NANOS_PER_TICK), logPosition() - before.logPosition());
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

  /**
   * MariaDB: the threads serving other clients' connections, by their client port (see the class comment).
   */
  private Set<Long> foreignConnectionThreads() {
    Set<Integer> ours = ownLocalPorts();
    Set<Long> tids = new HashSet<>();
    try (Statement statement = monitor.createStatement();
        ResultSet rows = statement.executeQuery("SELECT TID, HOST FROM information_schema.PROCESSLIST")) {
      while (rows.next()) {
        String host = rows.getString(2);
        int colon = host == null ? -1 : host.lastIndexOf(':');
        boolean ourPort = false;
        if (colon > 0) {
          try {
            ourPort = ours.contains(Integer.parseInt(host.substring(colon + 1)));
          } catch (NumberFormatException notAPort) {
            ourPort = false;
          }
        }
        if (!ourPort) {
          tids.add(rows.getLong(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot list MariaDB connections", e);
    }
    return tids;
  }

  /** @return the local TCP ports of the sockets this JVM holds open */
  static Set<Integer> ownLocalPorts() {
    Set<String> inodes = new HashSet<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : fds) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException closed) {
          // closed since listed
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/self/fd", e);
    }
    Set<Integer> ports = new HashSet<>();
    for (String table : new String[] {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          String[] fields = line.trim().split("\\s+");
          // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
          if (fields.length > 9 && inodes.contains(fields[9]) && fields[1].contains(":")) {
            ports.add(Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1), 16));
          }
        }
      } catch (IOException | NumberFormatException missing) {
        // no IPv6 table, or a line of another shape
      }
    }
    return ports;
  }

  /** MariaDB: CPU ticks of every thread of the server process. */
  private static Map<ProcessKey, Long> mariaDbTicks() {
    Map<ProcessKey, Long> ticks = new HashMap<>();
    for (long server : processesNamed(Set.of("mariadbd", "mysqld"))) {
      try (DirectoryStream<Path> threads = Files.newDirectoryStream(Path.of("/proc/" + server + "/task"))) {
        for (Path thread : threads) {
          readTicks(thread, null, ticks);
        }
      } catch (IOException gone) {
        // the server restarted
      }
    }
    return ticks;
  }

  /** @return the pids of the processes whose command name is one of {@code names} */
  private static Set<Long> processesNamed(Set<String> names) {
    Set<Long> pids = new HashSet<>();
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path process : processes) {
        try {
          String stat = Files.readString(process.resolve("stat"));
          if (names.contains(stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) {
            pids.add(Long.parseLong(process.getFileName().toString()));
          }
        } catch (IOException | RuntimeException gone) {
          // exited since listed
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc", e);
    }
    return pids;
  }

  private static Map<ProcessKey, Long> postgresTicks() {
    Map<ProcessKey, Long> ticks = new HashMap<>();
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path process : processes) {
        readTicks(process, "postgres", ticks);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc", e);
    }
    return ticks;
  }

  /**
   * Adds the {@code utime + stime} of one process or thread ({@code <dir>/stat}) to {@code ticks}, keyed by id and
   * start time, if its command name is {@code name} (any name when {@code null}).
   */
  private static void readTicks(Path directory, @Nullable String name, Map<ProcessKey, Long> ticks) {
    String stat;
    try {
      stat = Files.readString(directory.resolve("stat"));
    } catch (IOException gone) {
      return;
    }
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    if (open < 0 || close < 0 || (name != null && !stat.substring(open + 1, close).equals(name))) {
      return;
    }
    // Fields after the command name, 0-based from "state": utime is field 14 of the line, stime 15, starttime 22.
    String[] fields = stat.substring(close + 2).split(" ");
    long utime = Long.parseLong(fields[11]);
    long stime = Long.parseLong(fields[12]);
    long start = Long.parseLong(fields[19]);
    ticks.put(new ProcessKey(Long.parseLong(stat.substring(0, open).trim()), start), utime + stime);
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
