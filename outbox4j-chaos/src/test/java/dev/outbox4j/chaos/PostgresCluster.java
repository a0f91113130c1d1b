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
 * <p>The cluster runs with {@code track_commit_timestamp = on}, which {@link CommitRecord#POSTGRESQL} reads commit
 * order from. ({@code fsync = off} loses nothing here: a crash of the server process leaves the operating system's
 * page cache intact.)
 */
final class PostgresCluster implements ChaosDatabase {
  private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

  private final ChildProcesses processes;
  private final Path directory;
  private final Path data;
  private final int port;

  private PostgresCluster(ChildProcesses processes, Path directory) {
    this.processes = processes;
    this.directory = directory;
    this.data = directory.resolve("data");
    this.port = ChaosDatabase.freePort();
  }

  /**
   * Creates and starts a cluster.
   *
   * @param processes where the server commands run (and their logs go)
   * @param parent the directory under {@code target/} to create the cluster's directory in
   * @return the running cluster
   */
  static PostgresCluster start(ChildProcesses processes, Path parent) {
    Path directory = parent.toAbsolutePath().resolve("pg-" + UUID.randomUUID().toString().substring(0, 8));
    PostgresCluster cluster = new PostgresCluster(processes, directory);
    try {
      Files.createDirectories(directory);
      ChaosDatabase.markOwner(directory);
      if (ChaosDatabase.runningAsRoot()) {
        processes.run("pg-chown", Duration.ofSeconds(30), List.of("chown", "-R", "postgres:postgres",
            directory.toString()));
      }
      processes.run("pg-initdb", Duration.ofSeconds(120), cluster.asOwner(BIN.resolve("initdb").toString(), "-D",
          cluster.data.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"));
      cluster.startServer();
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

  private void startServer() {
    String options = "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1"
        + " -c track_commit_timestamp=on -c fsync=off -c max_connections=300 -c shared_buffers=64MB";
    processes.run("pg-ctl", START_TIMEOUT, asOwner(BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-l",
        directory.resolve("server.log").toString(), "-w", "-t", Long.toString(START_TIMEOUT.toSeconds()), "-o",
        options, "start"));
    ChaosDatabase.awaitAccepting(jdbcUrl());
  }

  /** Stops a cluster of a test JVM that is gone ({@link ChaosDatabase#stopLeftovers}). */
  static void stopLeftover(Path directory, ChildProcesses processes) {
    PostgresCluster cluster = new PostgresCluster(processes, directory);
    try {
      cluster.stopImmediately();
    } catch (RuntimeException e) {
      System.err.println("chaos: could not stop the leftover cluster in " + directory + ": " + e.getMessage());
    }
  }

  private void stopImmediately() {
    processes.run("pg-ctl", Duration.ofSeconds(60), asOwner(BIN.resolve("pg_ctl").toString(), "-D", data.toString(),
        "-m", "immediate", "-w", "stop"));
  }

  @Override
  public String kind() {
    return "postgresql";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=3&socketTimeout=30"
        + "&tcpKeepAlive=true";
  }

  @Override
  public void crashRestart(Duration downtime) {
    stopImmediately();
    ChaosRun.pause(downtime); // the outage itself
    startServer();
  }

  @Override
  public CommitRecord commitRecord() {
    return CommitRecord.POSTGRESQL;
  }

  @Override
  public void close() {
    if (Files.exists(data.resolve("postmaster.pid"))) {
      try {
        stopImmediately();
      } catch (RuntimeException e) {
        System.err.println("chaos: pg_ctl stop failed: " + e.getMessage());
      }
    }
    ChaosDatabase.keepLog(directory.resolve("server.log"), processes.logDirectory());
    ChaosDatabase.deleteTree(directory);
  }

  @Override
  public String toString() {
    return "PostgreSQL cluster on port " + port + " in " + directory;
  }
}
