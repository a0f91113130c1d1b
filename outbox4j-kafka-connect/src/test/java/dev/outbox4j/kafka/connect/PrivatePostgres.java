package dev.outbox4j.kafka.connect;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * A PostgreSQL 15 server of this test's own, so the test can crash it: {@code initdb} into a temporary directory,
 * {@code pg_ctl start} on a free port, and a crash is {@code pg_ctl stop -m immediate} (no checkpoint; the start after
 * it replays the WAL). The machine's shared server on 5432 is never touched. {@code initdb} refuses to run as root, so
 * as root the server runs as the {@code postgres} OS user.
 *
 * <p>Not thread-safe; the test closes it (the server is stopped and its directory deleted).
 */
final class PrivatePostgres implements AutoCloseable {
  private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");
  private static final Duration COMMAND_LIMIT = Duration.ofSeconds(120);

  private final Path directory;
  private final Path data;
  private final int port;

  private PrivatePostgres(Path directory, int port) {
    this.directory = directory;
    this.data = directory.resolve("data");
    this.port = port;
  }

  /** Creates a cluster and starts it; waits until it accepts connections. */
  static PrivatePostgres start() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    PrivatePostgres server = new PrivatePostgres(Files.createTempDirectory("outbox4j-connect-pg-"), port);
    try {
      if (asRoot()) {
        server.run(List.of("chown", "postgres:postgres", server.directory.toString()));
      }
      server.run(server.asOwner(BIN.resolve("initdb").toString(), "-D", server.data.toString(), "-U", "postgres",
          "--auth=trust", "-E", "UTF8", "--no-sync"));
      server.startServer();
      return server;
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** @return a JDBC URL of database {@code postgres}, with connect and socket timeouts so a crash is noticed */
  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=3&socketTimeout=30";
  }

  /** Crashes the server ({@code pg_ctl stop -m immediate}) and starts it again; waits until it accepts connections. */
  void crashRestart() {
    stopImmediately();
    startServer();
  }

  private void startServer() {
    String options = "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1 -c fsync=off"
        + " -c max_connections=100 -c shared_buffers=32MB";
    run(asOwner(BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", directory.resolve("server.log")
        .toString(), "-w", "-t", "90", "-o", options, "start"));
    Awaitility.await("the private PostgreSQL on " + port).atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
          try (Connection connection = DriverManager.getConnection(jdbcUrl())) {
            return connection.isValid(2);
          }
        });
  }

  private void stopImmediately() {
    run(asOwner(BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
  }

  private List<String> asOwner(String... command) {
    List<String> full = new ArrayList<>();
    if (asRoot()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(List.of(command));
    return full;
  }

  private static boolean asRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private void run(List<String> command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("commands.log").toFile())).start();
      if (!process.waitFor(COMMAND_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(command + " did not end within " + COMMAND_LIMIT);
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(command + " exited with " + process.exitValue() + ": "
            + Files.readString(directory.resolve("commands.log")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (Files.exists(data.resolve("postmaster.pid"))) {
      try {
        stopImmediately();
      } catch (RuntimeException e) {
        System.err.println("could not stop the private PostgreSQL: " + e.getMessage());
      }
    }
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      System.err.println("could not delete " + directory + ": " + e.getMessage());
    }
  }
}
