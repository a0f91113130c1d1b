package dev.outbox4j.examples.readme;

import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A RabbitMQ virtual host of this test JVM's own on the RabbitMQ service, made with {@code rabbitmqctl}, named as
 * {@link RunDatabases} names its database. Why: the examples then run with their real exchange and queue names, as a
 * user runs them, while any number of builds on the machine run them at once. {@code guest} gets every permission on
 * it; {@link #close()} deletes it, and a virtual host of a killed run is deleted by the next run once it is older than
 * {@link RunDatabases#STALE_AFTER}.
 */
final class RunVirtualHost implements AutoCloseable {
  private static final Pattern RUN_NAME = Pattern.compile("o4j_(\\d+)_\\d+_[a-z0-9]+");
  private static final Duration COMMAND_LIMIT = Duration.ofSeconds(60);

  private final String name = RunDatabases.name();

  private RunVirtualHost() {}

  /**
   * @return a new virtual host, stale ones of killed runs deleted first
   * @throws IllegalStateException if {@code rabbitmqctl} fails (it needs the rights of the RabbitMQ service's user or
   *     root)
   */
  static RunVirtualHost create() throws IOException, InterruptedException {
    RunVirtualHost host = new RunVirtualHost();
    Instant cutoff = Instant.now().minus(RunDatabases.STALE_AFTER);
    for (String line : control("list_vhosts", "--quiet", "--no-table-headers")) {
      Matcher run = RUN_NAME.matcher(line.strip());
      if (run.matches() && Instant.ofEpochSecond(Long.parseLong(run.group(1))).isBefore(cutoff)) {
        control("delete_vhost", line.strip());
      }
    }
    control("add_vhost", host.name);
    control("set_permissions", "-p", host.name, "guest", ".*", ".*", ".*");
    return host;
  }

  /** @return its name, for {@code virtual-host} settings */
  String name() {
    return name;
  }

  private static List<String> control(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("rabbitmqctl"));
    command.addAll(List.of(arguments));
    Process control = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(control.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!control.waitFor(COMMAND_LIMIT.toSeconds(), TimeUnit.SECONDS) || control.exitValue() != 0) {
      control.destroyForcibly();
      throw new IllegalStateException("rabbitmqctl " + String.join(" ", arguments) + " failed: " + output);
    }
    return output.lines().toList();
  }

  @Override
  public void close() throws IOException, InterruptedException {
    control("delete_vhost", name);
  }
}
