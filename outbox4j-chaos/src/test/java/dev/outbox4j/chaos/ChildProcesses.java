package dev.outbox4j.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Starts and owns child processes of a test: JVMs running a main class of the test class path, and plain commands
 * (database servers). Whatever it started is killed on {@link #close()} and, should the test JVM exit without reaching
 * it, by a shutdown hook; a child JVM started here also exits on its own when its parent dies (see
 * {@link ChildWatchdog}), so no child outlives the test even when the test JVM is killed outright.
 *
 * <p>Why separate processes: a SIGKILL, a SIGSTOP past a lease, a crash between a broker's confirmation and the
 * database's record — the faults an outbox is for — exist only between processes. Threads in one JVM share a heap, a
 * clock and a fate, and cannot be frozen one by one.
 *
 * <p>Child JVMs run {@code java} of this JVM ({@code ProcessHandle.current().info().command()}) with this JVM's class
 * path, their standard output and error appended to a log file of their own. Every wait is bounded. Thread-safe.
 */
public final class ChildProcesses implements AutoCloseable {
  private static final Duration EXIT_WAIT = Duration.ofSeconds(20);

  private final Path logDirectory;
  private final List<Child> children = new CopyOnWriteArrayList<>();
  private final Thread hook = new Thread(this::killAll, "outbox4j-chaos-children-kill");

  /**
   * @param logDirectory where each child's log file goes; created if missing
   */
  public ChildProcesses(Path logDirectory) {
    this.logDirectory = Objects.requireNonNull(logDirectory, "logDirectory");
    try {
      Files.createDirectories(logDirectory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** @return the directory of the children's log files */
  public Path logDirectory() {
    return logDirectory;
  }

  /**
   * Starts a JVM running {@code mainClass} with this JVM's class path.
   *
   * @param name the child's name, also its log file's name ({@code <name>.log}, appended to)
   * @param mainClass a class with a {@code main(String[])} on this class path
   * @param jvmOptions options before the class name, for example {@code -Xmx256m}
   * @param arguments the program arguments
   * @return the running child
   */
  public Child startJvm(String name, Class<?> mainClass, List<String> jvmOptions, List<String> arguments) {
    List<String> command = new ArrayList<>();
    command.add(javaExecutable());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(testClassPath());
    command.add(mainClass.getName());
    command.addAll(arguments);
    return start(name, command, true);
  }

  /**
   * Starts a command (a database server, {@code pg_ctl}).
   *
   * @param name the child's name and log file name
   * @param command the command and its arguments
   * @return the running child
   */
  public Child startCommand(String name, List<String> command) {
    return start(name, command, false);
  }

  /**
   * Runs a command to its end and fails if it does not exit 0 within the timeout.
   *
   * @param name the log file name
   * @param timeout the longest wait
   * @param command the command and its arguments
   * @throws IllegalStateException if it fails or times out (its log file is named)
   */
  public void run(String name, Duration timeout, List<String> command) {
    Child child = start(name, command, false);
    int exit = child.awaitExit(timeout);
    children.remove(child);
    if (exit != 0) {
      throw new IllegalStateException(name + " exited with " + exit + ", see " + child.log());
    }
  }

  private Child start(String name, List<String> command, boolean watchParent) {
    Path log = logDirectory.resolve(name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (!watchParent) {
      builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    try {
      Child child = new Child(name, builder.start(), log);
      children.add(child);
      return child;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + ": " + command, e);
    }
  }

  /** Kills (SIGKILL) every child still alive, and waits for each to end. */
  public void killAll() {
    for (Child child : children) {
      child.kill();
    }
    children.clear();
  }

  @Override
  public void close() {
    killAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to: nothing to remove
    }
  }

  static String javaExecutable() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  static String testClassPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
  }

  /**
   * Sends a signal to a process by pid.
   *
   * @param signal for example {@code STOP}, {@code CONT}, {@code KILL}
   * @param pid the process
   */
  static void signal(String signal, long pid) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + pid + " did not return");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One started process. Thread-safe. */
  public static final class Child {
    private final String name;
    private final Process process;
    private final Path log;

    Child(String name, Process process, Path log) {
      this.name = name;
      this.process = process;
      this.log = log;
    }

    /** @return the name given at start */
    public String name() {
      return name;
    }

    /** @return the operating-system process id */
    public long pid() {
      return process.pid();
    }

    /** @return its log file */
    public Path log() {
      return log;
    }

    /**
     * Waits until a server this child runs listens on {@code port} on 127.0.0.1 ({@link
     * dev.outbox4j.testkit.ListeningPort}).
     *
     * @throws IllegalStateException when it ended or the limit passed first (it is then killed); names its log
     */
    public void awaitListening(int port, Duration limit) {
      dev.outbox4j.testkit.ListeningPort.await(process, port, limit, log.toString());
    }

    /** @return whether it is still running */
    public boolean isAlive() {
      return process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no finally, no flush; then waits (bounded) until it is gone. */
    public void kill() {
      if (process.isAlive()) {
        resume(); // a stopped process dies on SIGKILL too, but its exit is reaped sooner when it runs
        process.destroyForcibly();
      }
      awaitExit(EXIT_WAIT);
    }

    /**
     * Writes a thread dump of this JVM ({@code jcmd <pid> Thread.print -l}) next to its log, as
     * {@code <name>-threads-<n>.txt}, for a process that seems to stand still; best effort (a failure is noted in the
     * file).
     *
     * @return the file written
     */
    public Path threadDump() {
      Path file;
      int n = 1;
      do {
        file = log.resolveSibling(name + "-threads-" + n++ + ".txt");
      } while (Files.exists(file));
      Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
      try {
        Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "Thread.print", "-l")
            .redirectErrorStream(true).redirectOutput(file.toFile()).start();
        if (!dump.waitFor(30, TimeUnit.SECONDS)) {
          dump.destroyForcibly();
          Files.writeString(file, "jcmd did not return within 30 s", StandardOpenOption.APPEND);
        }
      } catch (IOException e) {
        try {
          Files.writeString(file, "no thread dump: " + e);
        } catch (IOException ignored) {
          // nowhere to note it
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return file;
    }

    /** SIGSTOP: the process stops where it is, every thread, sockets left open. */
    public void freeze() {
      signal("STOP", process.pid());
    }

    /** SIGCONT: a frozen process carries on from where it stopped. */
    public void resume() {
      if (process.isAlive()) {
        signal("CONT", process.pid());
      }
    }

    /**
     * Waits for the process to end.
     *
     * @param timeout the longest wait
     * @return its exit code
     * @throws IllegalStateException if it is still running after the timeout
     */
    public int awaitExit(Duration timeout) {
      try {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException(name + " still running after " + timeout);
        }
        return process.exitValue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }

    @Override
    public String toString() {
      return name + "(pid " + process.pid() + ")";
    }
  }
}
