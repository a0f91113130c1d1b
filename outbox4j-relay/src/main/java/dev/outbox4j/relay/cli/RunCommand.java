package dev.outbox4j.relay.cli;

import dev.outbox4j.DurationFormat;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.runtime.RelayRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code run}: the relay as a service, until SIGTERM or Ctrl-C. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Drain the outbox described by the configuration file until stopped (SIGTERM or Ctrl-C stop "
        + "gracefully: no new claims, deliveries in flight get relay.shutdown-grace). Several 'run' processes may "
        + "share one database.")
final class RunCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true,
      description = "YAML configuration file (see docs/relay-app.md); environment variables OUTBOX4J_* override it")
  Path config;

  RunCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws InterruptedException {
    RelayConfig relayConfig = ConfigReader.read(config, List.of(), context.environment());
    if (relayConfig.destinations().isEmpty()) {
      throw new dev.outbox4j.relay.config.ConfigException("destinations",
          "is required: map each destination (or '*') to a transport", relayConfig.source());
    }
    if (!relayConfig.database().migrate()) {
      OutboxAccess.refuseMissingH2File(relayConfig.database());
    }
    RelayRuntime runtime = RelayRuntime.start(relayConfig);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      context.out().println("stopping (grace " + DurationFormat.format(relayConfig.relay().shutdownGrace()) + ")");
      context.out().flush();
      runtime.close();
      context.out().println("stopped");
      context.out().flush();
      stopped.countDown();
    }, "outbox4j-shutdown"));
    context.out().println("outbox4j relay running on " + relayConfig.database().displayUrl() + " (prefix "
        + relayConfig.database().tablePrefix() + "), destinations " + relayConfig.destinations());
    if (!runtime.baseUrl().isEmpty()) {
      // The token rides in the fragment: the browser keeps it and never sends it in a request line or a log.
      context.out().println("  dashboard  " + runtime.baseUrl() + "/#token="
          + (runtime.adminToken().generated() ? runtime.adminToken().value()
              : "<server.admin-token>   (the link with your admin token after #token= may act; without it, read only)"));
      context.out().println("  metrics    " + runtime.baseUrl() + "/metrics");
      context.out().println("  health     " + runtime.baseUrl() + "/health/ready");
      if (runtime.adminToken().generated()) {
        context.out().println("  admin token (generated for this run): " + runtime.adminToken().value());
      }
    }
    context.out().println("Stop with Ctrl-C or SIGTERM.");
    context.out().flush();
    stopped.await();
    return ExitCodes.OK;
  }
}
