package dev.outbox4j.relay;

import dev.outbox4j.relay.cli.Commands;
import dev.outbox4j.relay.cli.CliContext;
import dev.outbox4j.relay.logging.RelayLogging;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/**
 * The executable jar's entry point: {@code java -jar outbox4j-relay.jar <command>}. See {@code --help} and
 * docs/relay-app.md.
 */
public final class Main {
  private Main() {}

  /**
   * Runs a command and exits with its exit code (0 done, 1 failed, 2 usage, 3 configuration, 4 not found).
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    RelayLogging.initialize(); // before anything logs through java.util.logging, which is bridged from then on
    PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
    int code = Commands.execute(args, new CliContext(out, err, System.getenv(), Clock.systemUTC()));
    System.exit(code);
  }

}
