package dev.outbox4j.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * A database server the suite starts itself, in a directory of its own under {@code target/}, on a free port, so that
 * it can crash and restart it: the shared services on 5432 and 3306 are never touched.
 */
interface ChaosDatabase extends AutoCloseable {
  /** Longest wait for a server to accept connections after a start. */
  Duration START_TIMEOUT = Duration.ofSeconds(90);

  /** @return {@code postgresql} or {@code mariadb} */
  String kind();

  /** @return a JDBC URL of the suite's database, with connect and socket timeouts */
  String jdbcUrl();

  /** Kills the server the way a crash does (no shutdown, no checkpoint), waits {@code downtime}, starts it again. */
  void crashRestart(Duration downtime);

  /** @return how the writers record, and the suite reads back, commit order on this database */
  CommitRecord commitRecord();

  /** Stops the server at once and deletes its directory. */
  @Override
  void close();

  /** @return a port nobody listens on now */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits, bounded, until a connection to {@code url} succeeds. */
  static void awaitAccepting(String url) {
    Awaitility.await("database at " + url).atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> {
          try (Connection connection = DriverManager.getConnection(url)) {
            return connection.isValid(2);
          }
        });
  }

  /** @return whether this JVM runs as root (database servers then run as their own OS user) */
  static boolean runningAsRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  /**
   * Stops and deletes the servers of earlier runs whose test JVM is gone (killed before it could clean up): each
   * server directory holds its owner's pid in {@code owner.pid}. Servers of a live test JVM are left alone.
   *
   * @param parent the directory the servers' directories are in
   * @param processes runs {@code pg_ctl}
   */
  static void stopLeftovers(Path parent, ChildProcesses processes) {
    if (!Files.isDirectory(parent)) {
      return;
    }
    try (Stream<Path> directories = Files.list(parent)) {
      for (Path directory : directories.toList()) {
        Path owner = directory.resolve("owner.pid");
        long pid = Files.exists(owner) ? Long.parseLong(Files.readString(owner).trim()) : -1;
        if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
          continue;
        }
        if (Files.exists(directory.resolve("data").resolve("postmaster.pid"))) {
          PostgresCluster.stopLeftover(directory, processes);
        }
        if (Files.exists(directory.resolve("pgbouncer.pid"))) {
          PgBouncer.stopLeftover(directory);
        }
        Path mariadb = directory.resolve("mariadb.pid");
        if (Files.exists(mariadb)) {
          long server = Long.parseLong(Files.readString(mariadb).trim());
          ProcessHandle.of(server).filter(p -> p.info().command().orElse("").contains("mariadbd"))
              .ifPresent(ProcessHandle::destroyForcibly);
        }
        System.err.println("chaos: removing the leftover server directory " + directory);
        deleteTree(directory);
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("chaos: could not clean up leftovers in " + parent + ": " + e);
    }
  }

  /** Marks a server directory as this JVM's, for {@link #stopLeftovers}. */
  static void markOwner(Path directory) throws IOException {
    Files.writeString(directory.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
  }

  /** Copies a server's log next to the children's logs before its directory goes. */
  static void keepLog(Path log, Path logDirectory) {
    try {
      if (Files.exists(log)) {
        Files.copy(log, logDirectory.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      System.err.println("chaos: could not keep " + log + ": " + e.getMessage());
    }
  }

  /** Deletes a directory tree, quietly. */
  static void deleteTree(Path directory) {
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      System.err.println("chaos: could not delete " + directory + ": " + e.getMessage());
    }
  }
}
