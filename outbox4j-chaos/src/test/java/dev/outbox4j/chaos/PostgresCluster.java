package dev.outbox4j.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A PostgreSQL 15 cluster of the suite's own: {@code initdb} into a directory under {@code target/}, started with
 * {@code pg_ctl} on a free port with {@code track_commit_timestamp = on}, crashed with {@code pg_ctl stop -m immediate}
 * (no checkpoint: the restart replays the WAL, as after a crash). {@code initdb} refuses to run as root, so as root the
 * cluster belongs to the {@code postgres} OS user ({@code runuser}).
 *
 * <p>Three ways to crash it ({@link Crash}): the whole server stopped immediately and started again; one client
 * backend SIGKILLed, after which the postmaster ends every session and reinitialises (crash recovery) with its start
 * time unchanged; or a failover, where a streaming standby (a second cluster on a port of its own, synchronous, so a
 * commit the primary confirmed is on it) is promoted after the primary stopped immediately, and every client finds it
 * through a multi-host URL ({@code targetServerType=primary}).
 *
 * <p>With production's settings ({@link #startWithProductionSettings}) the server runs with
 * {@code synchronous_commit = off} (a commit returns before its WAL is flushed: the crash loses the last fraction of a
 * second of commits that other sessions may already have read) and database {@code postgres} defaults to
 * {@code REPEATABLE READ} ({@code ALTER DATABASE ... SET default_transaction_isolation}), as many production databases
 * are tuned; the crash is an immediate restart.
 *
 * <p>The cluster runs with {@code track_commit_timestamp = on}, which {@link CommitRecord#POSTGRESQL} reads commit
 * order from. ({@code fsync = off} loses nothing here: a crash of the server process leaves the operating system's
 * page cache intact.)
 */
final class PostgresCluster implements ChaosDatabase {
  private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  /** How {@link #crashRestart} crashes the server. */
  enum Crash {
    /** {@code pg_ctl stop -m immediate}, then start: the restart replays the WAL. */
    RESTART_IMMEDIATE,
    /** SIGKILL of one client backend: the postmaster ends every session and reinitialises. */
    BACKEND_KILLED,
    /** The primary stopped immediately and the synchronous standby promoted. */
    FAILOVER
  }

  private final ChildProcesses processes;
  private final Path directory;
  private final Path data;
  private final int port;
  private final Crash crash;
  private final Path standby;
  private final int standbyPort;
  /** Whether the server runs with {@code synchronous_commit = off} and the database defaults to REPEATABLE READ. */
  private final boolean productionSettings;

  private PostgresCluster(ChildProcesses processes, Path directory, Crash crash) {
    this(processes, directory, crash, false);
  }

  private PostgresCluster(ChildProcesses processes, Path directory, Crash crash, boolean productionSettings) {
    this.productionSettings = productionSettings;
    this.processes = processes;
    this.directory = directory;
    this.data = directory.resolve("data");
    this.port = ChaosDatabase.freePort();
    this.crash = crash;
    this.standby = directory.resolve("standby");
    this.standbyPort = crash == Crash.FAILOVER ? ChaosDatabase.freePort() : -1;
  }

  /**
   * Creates and starts a cluster.
   *
   * @param processes where the server commands run (and their logs go)
   * @param parent the directory under {@code target/} to create the cluster's directory in
   * @return the running cluster
   */
  static PostgresCluster start(ChildProcesses processes, Path parent) {
    return start(processes, parent, Crash.RESTART_IMMEDIATE);
  }

  /** As {@link #start(ChildProcesses, Path)}, crashed by SIGKILLing a client backend. */
  static PostgresCluster startKillingABackend(ChildProcesses processes, Path parent) {
    return start(processes, parent, Crash.BACKEND_KILLED);
  }

  /** As {@link #start(ChildProcesses, Path)}, with a synchronous streaming standby promoted at the crash. */
  static PostgresCluster startWithAStandby(ChildProcesses processes, Path parent) {
    return start(processes, parent, Crash.FAILOVER);
  }

  /**
   * As {@link #start(ChildProcesses, Path)} (an immediate restart as the crash), with production's settings: the
   * server with {@code synchronous_commit = off}, database {@code postgres} defaulting to {@code REPEATABLE READ}.
   */
  static PostgresCluster startWithProductionSettings(ChildProcesses processes, Path parent) {
    return start(processes, parent, Crash.RESTART_IMMEDIATE, true);
  }

  private static PostgresCluster start(ChildProcesses processes, Path parent, Crash crash) {
    return start(processes, parent, crash, false);
  }

  private static PostgresCluster start(ChildProcesses processes, Path parent, Crash crash,
      boolean productionSettings) {
    Path directory = parent.toAbsolutePath().resolve("pg-" + UUID.randomUUID().toString().substring(0, 8));
    PostgresCluster cluster = new PostgresCluster(processes, directory, crash, productionSettings);
    try {
      Files.createDirectories(directory);
      ChaosDatabase.markOwner(directory);
      if (ChaosDatabase.runningAsRoot()) {
        processes.run("pg-chown", Duration.ofSeconds(30), List.of("chown", "-R", "postgres:postgres",
            directory.toString()));
      }
      processes.run("pg-initdb", Duration.ofSeconds(120), cluster.asOwner(BIN.resolve("initdb").toString(), "-D",
          cluster.data.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"));
      cluster.startServer(cluster.data, cluster.port);
      if (productionSettings) {
        cluster.defaultToRepeatableRead();
      }
      if (crash == Crash.FAILOVER) {
        cluster.startStandby();
      }
      return cluster;
    } catch (IOException e) {
      cluster.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private List<String> asOwner(String... command) {
    List<String> full = new ArrayList<>();
    if (ChaosDatabase.runningAsRoot()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(List.of(command));
    return full;
  }

  private void startServer(Path cluster, int onPort) {
    String options = "-p " + onPort + " -k " + directory + " -c listen_addresses=127.0.0.1"
        + " -c track_commit_timestamp=on -c fsync=off -c max_connections=300 -c shared_buffers=64MB"
        + " -c wal_level=replica -c max_wal_senders=5 -c hot_standby=on"
        + (productionSettings ? " -c synchronous_commit=off" : "");
    processes.run("pg-ctl", START_TIMEOUT, asOwner(BIN.resolve("pg_ctl").toString(), "-D", cluster.toString(), "-l",
        directory.resolve(cluster.getFileName() + ".log").toString(), "-w", "-t",
        Long.toString(START_TIMEOUT.toSeconds()), "-o", options, "start"));
    ChaosDatabase.awaitAccepting(jdbcUrl());
  }

  /** Makes REPEATABLE READ the default of every later session of database {@code postgres}. */
  private void defaultToRepeatableRead() {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl());
        java.sql.Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE postgres SET default_transaction_isolation = 'repeatable read'");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("could not set the database's default isolation", e);
    }
  }

  /** @return the server's port on 127.0.0.1 (the primary's, with a standby) */
  int port() {
    return port;
  }

  /**
   * Copies the primary with {@code pg_basebackup -R}, starts the copy as a streaming standby, waits until it streams,
   * then makes it synchronous: from here on a commit returns once the standby has flushed it.
   */
  private void startStandby() {
    processes.run("pg-basebackup", START_TIMEOUT, asOwner(BIN.resolve("pg_basebackup").toString(), "-D",
        standby.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres", "-X", "stream", "-R",
        "--no-sync"));
    startServer(standby, standbyPort);
    String primary = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    org.awaitility.Awaitility.await("the standby streaming").atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(200)).until(() -> {
          try (java.sql.Connection c = java.sql.DriverManager.getConnection(primary);
              java.sql.Statement s = c.createStatement();
              java.sql.ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_replication"
                  + " WHERE state = 'streaming'")) {
            r.next();
            return r.getInt(1) == 1;
          }
        });
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(primary);
        java.sql.Statement s = c.createStatement()) {
      s.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
      s.execute("SELECT pg_reload_conf()");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("could not make the standby synchronous", e);
    }
  }

  /** Stops a cluster of a test JVM that is gone ({@link ChaosDatabase#stopLeftovers}). */
  static void stopLeftover(Path directory, ChildProcesses processes) {
    PostgresCluster cluster = new PostgresCluster(processes, directory, Crash.RESTART_IMMEDIATE);
    for (Path each : List.of(cluster.data, cluster.standby)) {
      if (Files.exists(each.resolve("postmaster.pid"))) {
        try {
          cluster.stopImmediately(each);
        } catch (RuntimeException e) {
          System.err.println("chaos: could not stop the leftover cluster in " + each + ": " + e.getMessage());
        }
      }
    }
  }

  private void stopImmediately(Path cluster) {
    processes.run("pg-ctl", Duration.ofSeconds(60), asOwner(BIN.resolve("pg_ctl").toString(), "-D",
        cluster.toString(), "-m", "immediate", "-w", "stop"));
  }

  @Override
  public String kind() {
    return "postgresql";
  }

  @Override
  public String jdbcUrl() {
    String hosts = "127.0.0.1:" + port + (crash == Crash.FAILOVER ? ",127.0.0.1:" + standbyPort : "");
    return "jdbc:postgresql://" + hosts + "/postgres?user=postgres&connectTimeout=3&socketTimeout=30"
        + "&tcpKeepAlive=true" + (crash == Crash.FAILOVER ? "&targetServerType=primary" : "");
  }

  @Override
  public void crashRestart(Duration downtime) {
    switch (crash) {
      case RESTART_IMMEDIATE -> {
        crash();
        ChaosRun.pause(downtime); // the outage itself
        startAfterCrash();
      }
      case BACKEND_KILLED -> {
        killABackend();
        ChaosDatabase.awaitAccepting(jdbcUrl());
      }
      case FAILOVER -> {
        stopImmediately(data);
        ChaosRun.pause(downtime);
        processes.run("pg-promote", START_TIMEOUT, asOwner(BIN.resolve("pg_ctl").toString(), "-D",
            standby.toString(), "-w", "promote"));
        ChaosDatabase.awaitAccepting(jdbcUrl());
      }
    }
  }

  /**
   * Crashes the server with {@code pg_ctl stop -m immediate} (no checkpoint) and leaves it down, for a caller that
   * watches the outage itself; {@link #startAfterCrash} ends it.
   */
  void crash() {
    stopImmediately(data);
  }

  /** Starts the server after {@link #crash} (it replays the WAL) and waits until it accepts connections. */
  void startAfterCrash() {
    startServer(data, port);
  }

  /** SIGKILLs one client backend (a writer's or a relay's); the postmaster then reinitialises. */
  private void killABackend() {
    long pid;
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl());
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet r = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'"
            + " AND pid <> pg_backend_pid() ORDER BY backend_start LIMIT 1")) {
      pid = r.next() ? r.getLong(1) : -1;
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("could not find a backend to kill", e);
    }
    if (pid < 0) {
      throw new IllegalStateException("no client backend to kill");
    }
    ChildProcesses.signal("KILL", pid);
  }

  @Override
  public CommitRecord commitRecord() {
    return CommitRecord.POSTGRESQL;
  }

  @Override
  public void close() {
    for (Path each : List.of(data, standby)) {
      if (Files.exists(each.resolve("postmaster.pid"))) {
        try {
          stopImmediately(each);
        } catch (RuntimeException e) {
          System.err.println("chaos: pg_ctl stop failed: " + e.getMessage());
        }
      }
    }
    ChaosDatabase.keepLog(directory.resolve("data.log"), processes.logDirectory());
    if (crash == Crash.FAILOVER) {
      ChaosDatabase.keepLog(directory.resolve("standby.log"), processes.logDirectory());
    }
    ChaosDatabase.deleteTree(directory);
  }

  @Override
  public String toString() {
    return "PostgreSQL cluster on port " + port + (crash == Crash.FAILOVER ? " (standby on " + standbyPort + ")" : "")
        + (productionSettings ? " (synchronous_commit=off, database default REPEATABLE READ)" : "")
        + " in " + directory;
  }
}
