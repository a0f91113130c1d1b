package dev.outbox4j.relay.cli;

import dev.outbox4j.DurationFormat;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.ConfigValue;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.logging.LogFormat;
import dev.outbox4j.relay.logging.RelayLogging;
import dev.outbox4j.relay.runtime.RelayRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code run}: the relay as a service, until SIGTERM or Ctrl-C. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Drain the outbox (or the outboxes) described by the configuration file until stopped (SIGTERM or"
        + " Ctrl-C stop gracefully: no new claims, deliveries in flight get relay.shutdown-grace). Several 'run'"
        + " processes may share one database.")
final class RunCommand implements Callable<Integer> {
  private final CliContext context;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true,
      description = "YAML configuration file (see docs/relay-app.md); environment variables OUTBOX4J_* override it")
  Path config;

  @Option(names = "--log-format", paramLabel = "FORMAT",
      description = "plain (default: one line per record) or json (one object per line), as logging.format; "
          + "OUTBOX4J_LOGGING_FORMAT overrides both")
  @Nullable LogFormat logFormat;

  RunCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws InterruptedException {
    List<ConfigValue> options = logFormat == null ? List.of()
        : List.of(new ConfigValue("logging.format", logFormat.configName(), "option --log-format"));
    RelayConfig relayConfig = ConfigReader.read(config, options, context.environment());
    RelayLogging.use(relayConfig.logFormat());
    // In JSON every line the process writes is a log record, so that a log pipeline reads all of them.
    Consumer<String> say = relayConfig.logFormat() == LogFormat.JSON
        ? line -> System.getLogger(RunCommand.class.getName()).log(System.Logger.Level.INFO, line.strip())
        : line -> {
          context.out().println(line);
          context.out().flush();
        };
    for (RelayConfig.Outbox outbox : relayConfig.outboxes().values()) {
      if (outbox.destinations().isEmpty()) {
        throw new dev.outbox4j.relay.config.ConfigException(relayConfig.named()
            ? "outboxes." + outbox.name() + ".destinations" : "destinations",
            "is required: map each destination (or '*') to a transport", relayConfig.source());
      }
      if (!outbox.database().migrate()) {
        OutboxAccess.refuseMissingH2File(outbox.database());
      }
    }
    RelayRuntime runtime = RelayRuntime.start(relayConfig);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      say.accept("stopping (grace " + DurationFormat.format(relayConfig.relay().shutdownGrace()) + ")");
      runtime.close();
      say.accept("stopped");
      stopped.countDown();
    }, "outbox4j-shutdown"));
    if (relayConfig.named()) {
      say.accept("outbox4j relay running " + relayConfig.outboxes().size() + " outbox entries:");
      for (RelayConfig.Outbox outbox : relayConfig.outboxes().values()) {
        say.accept("  " + outbox.name() + "  " + outbox.database().displayUrl() + " (prefix "
            + outbox.database().tablePrefix() + (outbox.tenants() == null ? "" : ", a tenant outbox per schema "
            + (outbox.tenants().schemas() != null ? "matching " + outbox.tenants().schemas().pattern()
                : "of tenants.query") + ", looked for every " + DurationFormat.format(outbox.tenants().rediscover()))
            + "), destinations " + outbox.destinations());
      }
    } else {
      say.accept("outbox4j relay running on " + relayConfig.database().displayUrl() + " (prefix "
          + relayConfig.database().tablePrefix() + "), destinations " + relayConfig.destinations());
    }
    if (!runtime.baseUrl().isEmpty()) {
      // The token rides in the fragment: the browser keeps it and never sends it in a request line or a log.
      say.accept("  dashboard  " + runtime.baseUrl() + "/#token="
          + (runtime.adminToken().generated() ? runtime.adminToken().value()
              : "<server.admin-token>   (the link with your admin token after #token= may act; without it, read only)"));
      say.accept("  metrics    " + runtime.baseUrl() + "/metrics");
      say.accept("  health     " + runtime.baseUrl() + "/health/ready");
      if (runtime.adminToken().generated()) {
        say.accept("  admin token (generated for this run): " + runtime.adminToken().value());
      }
    }
    say.accept("Stop with Ctrl-C or SIGTERM.");
    stopped.await();
    return ExitCodes.OK;
  }
}
