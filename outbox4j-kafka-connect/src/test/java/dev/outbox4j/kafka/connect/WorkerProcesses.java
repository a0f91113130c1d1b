package dev.outbox4j.kafka.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * Connect workers in distributed mode, each a JVM of its own ({@code ConnectDistributed} from {@code connect-runtime}
 * on this test's class path), so a test can SIGKILL one and start it again on the same REST port. Their output goes
 * to {@code worker-<n>.log} in the cluster's directory.
 *
 * <p>Not thread-safe; the test closes it (every worker is killed).
 */
final class WorkerProcesses implements AutoCloseable {
  private final Path directory;
  private final Map<String, String> settings;
  private final int[] ports;
  private final Process[] processes;

  private WorkerProcesses(Path directory, Map<String, String> settings, int count) {
    this.directory = directory;
    this.settings = settings;
    this.ports = new int[count];
    this.processes = new Process[count];
  }

  /**
   * Starts {@code count} workers and waits until each answers on its REST port.
   *
   * @param settings the cluster's worker settings ({@link ConnectWorkers#workerSettings})
   * @param count how many workers
   * @return the running workers
   */
  static WorkerProcesses start(Map<String, String> settings, int count) throws IOException {
    WorkerProcesses workers = new WorkerProcesses(Files.createTempDirectory("outbox4j-connect-"), settings, count);
    try {
      for (int i = 0; i < count; i++) {
        workers.ports[i] = freePort();
        workers.launch(i);
      }
      for (int i = 0; i < count; i++) {
        workers.awaitUp(i);
      }
    } catch (RuntimeException | Error e) {
      workers.close();
      throw e;
    }
    return workers;
  }

  /** @return how many workers */
  int count() {
    return processes.length;
  }

  /** @return the REST API of worker {@code i} */
  ConnectRest rest(int i) {
    return new ConnectRest(URI.create("http://127.0.0.1:" + ports[i] + "/"));
  }

  /** SIGKILLs worker {@code i} and waits until it is gone. */
  void kill(int i) throws InterruptedException {
    processes[i].destroyForcibly();
    processes[i].waitFor(30, TimeUnit.SECONDS);
  }

  /** Stops worker {@code i} with SIGSTOP, as a long GC pause or a frozen VM would: it holds its sockets and does nothing. */
  void freeze(int i) throws IOException, InterruptedException {
    signal(i, "-STOP");
  }

  /** Lets a frozen worker {@code i} run on (SIGCONT). */
  void thaw(int i) throws IOException, InterruptedException {
    signal(i, "-CONT");
  }

  private void signal(int i, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(processes[i].pid())).inheritIO().start();
    if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill " + signal + " of worker " + i + " failed");
    }
  }

  /** @return the REST id of worker {@code i} ({@code host:port}), as task statuses name it in {@code worker_id} */
  String id(int i) {
    return "127.0.0.1:" + ports[i];
  }

  /** @return what worker {@code i} logged so far, over all its runs */
  List<String> log(int i) throws IOException {
    return Files.readAllLines(directory.resolve("worker-" + i + ".log"));
  }

  /** Starts worker {@code i} again on its port, and waits until it answers. */
  void restart(int i) {
    launch(i);
    awaitUp(i);
  }

  private void launch(int i) {
    Properties properties = new Properties();
    properties.putAll(settings);
    properties.put("listeners", "http://127.0.0.1:" + ports[i]);
    properties.put("rest.advertised.host.name", "127.0.0.1");
    properties.put("rest.advertised.port", Integer.toString(ports[i]));
    // A killed worker leaves the group after this; its tasks move after scheduled.rebalance.max.delay.ms.
    properties.put("session.timeout.ms", "6000");
    properties.put("heartbeat.interval.ms", "2000");
    Path file = directory.resolve("worker-" + i + ".properties");
    try (Writer writer = Files.newBufferedWriter(file)) {
      properties.store(writer, "outbox4j connect test worker " + i);
      String java = ProcessHandle.current().info().command()
          .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
      // C1 only and no perf data: a worker starts in less CPU time (it has little to optimise; the broker and the
      // database do the work), which is what a kill costs on a shared 2-core machine.
      processes[i] = new ProcessBuilder(List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-XX:-UsePerfData",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-Dorg.slf4j.simpleLogger.showDateTime=true", "-cp", classPath,
          "org.apache.kafka.connect.cli.ConnectDistributed", file.toString()))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("worker-" + i + ".log").toFile()))
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start worker " + i, e);
    }
  }

  private void awaitUp(int i) {
    Awaitility.await("worker " + i + " answering on " + ports[i]).atMost(Duration.ofMinutes(5))
        .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
          if (!processes[i].isAlive()) {
            throw new AssertionError("worker " + i + " exited; see " + directory.resolve("worker-" + i + ".log"));
          }
          HttpURLConnection connection =
              (HttpURLConnection) URI.create("http://127.0.0.1:" + ports[i] + "/connectors").toURL().openConnection();
          connection.setConnectTimeout(1_000);
          connection.setReadTimeout(5_000);
          return connection.getResponseCode() == 200;
        });
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    List<Process> alive = new ArrayList<>();
    for (Process process : processes) {
      if (process != null) {
        process.destroyForcibly();
        alive.add(process);
      }
    }
    for (Process process : alive) {
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
