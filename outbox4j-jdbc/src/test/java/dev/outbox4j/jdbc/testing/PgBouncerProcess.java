package dev.outbox4j.jdbc.testing;

import dev.outbox4j.testkit.ListeningPort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * PgBouncer (Debian's {@code /usr/sbin/pgbouncer}, 1.18 on the project's machines) in transaction mode, as production
 * runs it in front of PostgreSQL, for tests: a configuration of the test's own in a directory of its own, on a free
 * port. Its server pool is meant to be smaller than the clients' pools together, so transactions of different clients
 * share server connections (which breaks anything kept in a session, such as a driver's named prepared statements).
 *
 * <p>{@link #writeConfiguration} and {@link #command} are shared with harnesses that start processes their own way
 * (the chaos suite); {@link #start} runs it as a plain child process. PgBouncer refuses to run as root, so as root it
 * runs as the {@code postgres} OS user through {@code setpriv}, which executes it in place: the child is PgBouncer
 * itself, and a signal reaches it. Not thread-safe; one per test class.
 */
public final class PgBouncerProcess implements AutoCloseable {
  /** Where Debian installs it. */
  public static final Path EXECUTABLE = Path.of("/usr/sbin/pgbouncer");

  private final Process process;
  private final int port;

  private PgBouncerProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Writes {@code pgbouncer.ini} and its {@code users.txt} (user {@code postgres}, trust) into {@code directory}.
   *
   * @param directory where PgBouncer keeps its files; created if missing
   * @param database the database's name, the same through PgBouncer as on the server
   * @param serverPort the PostgreSQL server's port on 127.0.0.1
   * @param listenPort the port PgBouncer listens on
   * @param serverPoolSize server connections per database and user
   * @param more further {@code [pgbouncer]} lines, such as {@code server_login_retry = 1}
   * @return the configuration file
   */
  public static Path writeConfiguration(Path directory, String database, int serverPort, int listenPort,
      int serverPoolSize, List<String> more) {
    try {
      Files.createDirectories(directory);
      Files.writeString(directory.resolve("users.txt"), "\"postgres\" \"\"\n");
      List<String> lines = new ArrayList<>(List.of(
          "[databases]",
          database + " = host=127.0.0.1 port=" + serverPort + " dbname=" + database + " user=postgres",
          "[pgbouncer]",
          "listen_addr = 127.0.0.1",
          "listen_port = " + listenPort,
          "unix_socket_dir =",
          "auth_type = trust",
          "auth_file = " + directory.resolve("users.txt"),
          "pool_mode = transaction",
          "default_pool_size = " + serverPoolSize,
          "max_client_conn = 300",
          // pgjdbc's start-up parameters that PgBouncer does not track
          "ignore_startup_parameters = extra_float_digits,options"));
      lines.addAll(more);
      lines.add("");
      Path ini = directory.resolve("pgbouncer.ini");
      Files.writeString(ini, String.join("\n", lines));
      return ini;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @param ini the configuration file
   * @return the command that runs PgBouncer with it: as root, as the {@code postgres} user (whose files the
   *     configuration's directory then becomes)
   * @throws IllegalStateException if PgBouncer is not installed
   */
  public static List<String> command(Path ini) {
    if (!Files.isExecutable(EXECUTABLE)) {
      throw new IllegalStateException(EXECUTABLE + " is missing (Debian's pgbouncer package)");
    }
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      try {
        new ProcessBuilder("chown", "-R", "postgres:postgres", ini.getParent().toString()).inheritIO().start()
            .waitFor();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while handing PgBouncer's directory to postgres", e);
      }
      command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
    }
    command.addAll(List.of(EXECUTABLE.toString(), ini.toString()));
    return command;
  }

  /**
   * Starts PgBouncer in front of this JVM's own database on the shared server (127.0.0.1:5432,
   * {@link RunDatabases#name()}) and waits until it listens; its output and log go to {@code stdout.log} in
   * {@code directory}.
   *
   * @param directory where PgBouncer keeps its files
   * @param serverPoolSize server connections per database and user
   * @return the running PgBouncer
   */
  public static PgBouncerProcess start(Path directory, int serverPoolSize) {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Path ini = writeConfiguration(directory, RunDatabases.name(), 5432, port, serverPoolSize, List.of());
    Path output = directory.resolve("stdout.log");
    try {
      Process process = new ProcessBuilder(command(ini)).redirectErrorStream(true).redirectOutput(output.toFile())
          .start();
      ListeningPort.await(process, port, Duration.ofSeconds(20), output.toString());
      return new PgBouncerProcess(process, port);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** @return the port it listens on */
  public int port() {
    return port;
  }

  /** @return the URL of this JVM's own database through PgBouncer, with the driver's default settings */
  public String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + RunDatabases.name() + "?user=postgres";
  }

  /** Stops PgBouncer. */
  @Override
  public void close() {
    process.destroy();
  }
}
