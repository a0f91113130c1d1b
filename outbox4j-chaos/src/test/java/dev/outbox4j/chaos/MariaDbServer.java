package dev.outbox4j.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A MariaDB server of the suite's own: {@code mariadb-install-db} into a directory under {@code target/}, then
 * {@code mariadbd} as a child process on a free port and a socket in that directory, crashed with SIGKILL (InnoDB
 * recovers from its redo log on the restart).
 *
 * <p>Commit order comes from a commit ticket ({@link CommitRecord#MARIADB}).
 * ({@code innodb_flush_log_at_trx_commit = 2} loses nothing here: a killed server process leaves the operating
 * system's page cache intact.)
 */
final class MariaDbServer implements ChaosDatabase {
  private final ChildProcesses processes;
  private final Path directory;
  private final Path data;
  private final int port;
  private ChildProcesses.Child server;

  private MariaDbServer(ChildProcesses processes, Path directory) {
    this.processes = processes;
    this.directory = directory;
    this.data = directory.resolve("data");
    this.port = ChaosDatabase.freePort();
  }

  /**
   * Installs and starts a server, with an empty database {@code chaos}.
   *
   * @param processes where the server runs (and its log goes)
   * @param parent the directory under {@code target/} to create the server's directory in
   * @return the running server
   */
  static MariaDbServer start(ChildProcesses processes, Path parent) {
    Path directory = parent.toAbsolutePath().resolve("mariadb-" + UUID.randomUUID().toString().substring(0, 8));
    MariaDbServer server = new MariaDbServer(processes, directory);
    try {
      Files.createDirectories(directory);
      ChaosDatabase.markOwner(directory);
      List<String> install = new ArrayList<>(List.of("mariadb-install-db", "--no-defaults",
          "--datadir=" + server.data, "--auth-root-authentication-method=normal", "--skip-test-db"));
      if (ChaosDatabase.runningAsRoot()) {
        install.add("--user=root");
      }
      processes.run("mariadb-install-db", Duration.ofSeconds(120), install);
      server.startServer();
      try (Connection connection = DriverManager.getConnection(server.serverUrl());
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE DATABASE chaos");
      }
      return server;
    } catch (IOException e) {
      server.close();
      throw new UncheckedIOException(e);
    } catch (SQLException e) {
      server.close();
      throw new IllegalStateException(e);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  private void startServer() {
    List<String> command = new ArrayList<>(List.of("mariadbd", "--no-defaults", "--datadir=" + data,
        "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + directory.resolve("mariadb.sock"),
        "--pid-file=" + directory.resolve("mariadb.pid"), "--skip-log-bin", "--innodb-flush-log-at-trx-commit=2",
        "--innodb-buffer-pool-size=128M", "--max-connections=400", "--skip-name-resolve",
        "--log-error=" + directory.resolve("error.log")));
    if (ChaosDatabase.runningAsRoot()) {
      command.add("--user=root");
    }
    server = processes.startCommand("mariadbd", command);
    ChaosDatabase.awaitAccepting(serverUrl());
  }

  private String serverUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/?user=root&connectTimeout=3000";
  }

  @Override
  public String kind() {
    return "mariadb";
  }

  @Override
  public String jdbcUrl() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/chaos?user=root&connectTimeout=3000&socketTimeout=30000"
        + "&tcpKeepAlive=true";
  }

  @Override
  public void crashRestart(Duration downtime) {
    server.kill();
    ChaosRun.pause(downtime); // the outage itself
    startServer();
  }

  @Override
  public CommitRecord commitRecord() {
    return CommitRecord.MARIADB;
  }

  @Override
  public void close() {
    if (server != null) {
      server.kill();
    }
    ChaosDatabase.keepLog(directory.resolve("error.log"), processes.logDirectory());
    ChaosDatabase.deleteTree(directory);
  }

  @Override
  public String toString() {
    return "MariaDB server on port " + port + " in " + directory;
  }
}
