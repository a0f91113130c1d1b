package dev.outbox4j.relay.cli;

import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;

/**
 * What every command reads from its surroundings: where to print, the environment and the clock. Passed in rather
 * than read from {@code System}, so tests run the commands in-process with their own environment.
 *
 * @param out normal output
 * @param err errors and warnings
 * @param environment the process environment
 * @param clock the time source
 */
public record CliContext(PrintWriter out, PrintWriter err, Map<String, String> environment, Clock clock) {}
