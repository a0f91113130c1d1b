package dev.outbox4j.relay.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;

/** Runs a command in-process with its own environment and captures what it printed. */
record CliRun(int code, String out, String err) {
  static CliRun of(Map<String, String> environment, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Commands.execute(args, new CliContext(new PrintWriter(out, true), new PrintWriter(err, true),
        environment, Clock.systemUTC()));
    return new CliRun(code, out.toString(), err.toString());
  }

  static CliRun of(String... args) {
    return of(Map.of(), args);
  }
}
