package dev.outbox4j.examples.readme;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One start of an example, as a user runs it: a JVM of its own on the example's class path (its {@code target/classes}
 * and the {@code target/runtime-classpath.txt} its build writes), the main class given the command-line arguments a
 * README shows, on a free HTTP port. Its output goes to a log file, which the test reads the way a user reads the
 * console. {@link #close()} stops it as Ctrl-C does (SIGTERM: Spring closes the context) and waits for it to end.
 *
 * <p>A shutdown hook kills the process should the test JVM exit first. Not thread-safe: one test drives it.
 */
final class ExampleProcess implements AutoCloseable {
  private static final Duration STOP_WAIT = Duration.ofSeconds(30);

  private final String name;
  private final Process process;
  private final Path log;
  private final int port;
  private final Thread hook;

  private ExampleProcess(String name, Process process, Path log, int port) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.port = port;
    this.hook = new Thread(process::destroyForcibly, "outbox4j-example-kill-" + name);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /**
   * @param example the example's directory (holding {@code target/classes} and {@code target/runtime-classpath.txt})
   * @param mainClass the example's main class
   * @param name this start's name, also its log file's ({@code target/readme-check/<name>.log})
   * @param arguments the program arguments; {@code --server.port=<free port>} is added
   * @return the running example
   * @throws IllegalStateException if the example has not been built (run Maven with {@code -am})
   */
  static ExampleProcess start(Path example, String mainClass, String name, List<String> arguments) {
    Path classes = example.resolve("target/classes");
    Path dependencies = example.resolve("target/runtime-classpath.txt");
    if (!Files.isDirectory(classes) || !Files.isRegularFile(dependencies)) {
      throw new IllegalStateException(example + " is not built: no " + classes + " or " + dependencies
          + "; build it in the same Maven run (-am)");
    }
    try {
      Path log = Files.createDirectories(Path.of("target", "readme-check")).resolve(name + ".log");
      int port = freePort();
      List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx512m", "-cp",
          classes + java.io.File.pathSeparator + Files.readString(dependencies).strip(), mainClass));
      command.addAll(arguments);
      command.add("--server.port=" + port);
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
      return new ExampleProcess(name, process, log, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  /** @return {@code http://localhost:<port>} */
  String baseUrl() {
    return "http://localhost:" + port;
  }

  /** @return where its output goes */
  Path log() {
    return log;
  }

  /**
   * Waits for a line of its output matching {@code line}.
   *
   * @param line what to find
   * @param limit how long to wait
   * @return the first match (its groups)
   * @throws IllegalStateException if the process ends first
   */
  Matcher awaitLine(Pattern line, Duration limit) {
    await(name + " logging " + line).atMost(limit).pollInterval(Duration.ofMillis(200)).until(() -> {
      if (!process.isAlive() && lines(line).isEmpty()) {
        throw new IllegalStateException(name + " ended with " + process.exitValue() + " before logging " + line
            + "; see " + log.toAbsolutePath());
      }
      return !lines(line).isEmpty();
    });
    return lines(line).get(0);
  }

  /**
   * @param line what to find
   * @return every line of its output so far that matches {@code line}, in order
   */
  List<Matcher> lines(Pattern line) {
    List<Matcher> found = new ArrayList<>();
    try {
      for (String text : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        Matcher matcher = line.matcher(text);
        if (matcher.find()) {
          found.add(matcher);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }

  /** Stops it as Ctrl-C does and waits for it to end (killed after 30 s). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_WAIT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    Runtime.getRuntime().removeShutdownHook(hook);
  }
}
