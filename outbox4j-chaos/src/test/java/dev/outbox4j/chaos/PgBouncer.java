package dev.outbox4j.chaos;

import dev.outbox4j.jdbc.testing.PgBouncerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * PgBouncer (Debian's {@code /usr/sbin/pgbouncer}, 1.18 on the suite's machines) in front of the suite's PostgreSQL
 * cluster, in transaction mode, as production runs it: a child process with a configuration of its own on a free
 * port, in a directory of its own under {@code target/}. Its server pool is smaller than the clients' pools together,
 * so the transactions of different clients share server connections (what breaks session state such as a driver's
 * named prepared statements). It outlives the cluster's crash-restart: it keeps its clients, and connects to the
 * server again by itself ({@code server_login_retry} 1 s) once it accepts connections.
 *
 * <p>Its configuration and command are outbox4j-jdbc's test fixture's ({@link PgBouncerProcess}): as root it runs as
 * the {@code postgres} OS user through {@code setpriv}, which executes it in place, so a SIGKILL reaches it. Its pid is also written to
 * {@code pgbouncer.pid}, with the suite's own pid in {@code owner.pid}, so {@link ChaosDatabase#stopLeftovers} stops
 * one a killed test JVM left behind.
 */
final class PgBouncer implements AutoCloseable {
  private final Path directory;
  private final int port;
  private final ChildProcesses.Child process;

  private PgBouncer(Path directory, int port, ChildProcesses.Child process) {
    this.directory = directory;
    this.port = port;
    this.process = process;
  }

  /**
   * Starts PgBouncer in front of database {@code postgres} of a server on 127.0.0.1 and waits until it listens.
   *
   * @param processes starts it (its output goes to their log directory)
   * @param parent the directory to create PgBouncer's directory in (its log is its output, {@code pgbouncer.log}
   *     beside the children's logs)
   * @param serverPort the PostgreSQL server's port
   * @param serverPoolSize server connections per database and user
   * @return the running PgBouncer
   */
  static PgBouncer start(ChildProcesses processes, Path parent, int serverPort, int serverPoolSize) {
    Path directory = parent.toAbsolutePath().resolve("pgbouncer-" + UUID.randomUUID().toString().substring(0, 8));
    int port = ChaosDatabase.freePort();
    try {
      Files.createDirectories(directory);
      ChaosDatabase.markOwner(directory);
      Path ini = PgBouncerProcess.writeConfiguration(directory, "postgres", serverPort, port, serverPoolSize, List.of(
          // after the cluster's crash: try the server again within a second, not the default 15 s
          "server_login_retry = 1",
          "server_connect_timeout = 3",
          // a client waiting for a server connection while the cluster is down gets an error, as it would directly
          "query_wait_timeout = 20",
          "pidfile = " + directory.resolve("pgbouncer.pid")));
      List<String> command = PgBouncerProcess.command(ini);
      ChildProcesses.Child child = processes.startCommand("pgbouncer", command);
      PgBouncer bouncer = new PgBouncer(directory, port, child);
      try {
        child.awaitListening(port, Duration.ofSeconds(20));
      } catch (RuntimeException e) {
        bouncer.close();
        throw e;
      }
      return bouncer;
    } catch (IOException e) {
      ChaosDatabase.deleteTree(directory);
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @return the URL of database {@code postgres} through PgBouncer with pgjdbc's default settings (server-side
   *     prepared statements from the fifth execution on, as a pool user would have them), and the suite's timeouts
   */
  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=3&socketTimeout=30"
        + "&tcpKeepAlive=true";
  }

  /** Stops PgBouncer at once (SIGKILL) and deletes its directory. */
  @Override
  public void close() {
    process.kill();
    ChaosDatabase.deleteTree(directory);
  }

  /** Stops a PgBouncer of a test JVM that is gone, by the pid in its directory ({@link ChaosDatabase#stopLeftovers}). */
  static void stopLeftover(Path directory) {
    try {
      long pid = Long.parseLong(Files.readString(directory.resolve("pgbouncer.pid")).trim());
      ProcessHandle.of(pid).filter(p -> p.info().command().orElse("").contains("pgbouncer"))
          .ifPresent(ProcessHandle::destroyForcibly);
    } catch (IOException | RuntimeException e) {
      System.err.println("chaos: could not stop the leftover PgBouncer in " + directory + ": " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "PgBouncer 1.18 (transaction mode) on port " + port + " in " + directory;
  }
}
