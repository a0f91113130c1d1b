package dev.outbox4j.relay.cli;

/** Runs a command in-process for tests of other packages; returns its exit code. */
public final class CliRunner {
  private CliRunner() {}

  /**
   * @param args the command line
   * @return the exit code
   */
  public static int run(String... args) {
    CliRun run = CliRun.of(args);
    if (run.code() != 0) {
      System.err.println(run.err());
    }
    return run.code();
  }

  /**
   * @param args the command line
   * @return what the command printed on standard output
   * @throws AssertionError if it exited with a code other than 0
   */
  public static String output(String... args) {
    CliRun run = CliRun.of(args);
    if (run.code() != 0) {
      throw new AssertionError("exit code " + run.code() + ": " + run.err());
    }
    return run.out();
  }
}
