package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.spi.OutboxStats;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code status}: the outbox's counts and lag. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show how many entries wait, are in flight and are quarantined, and the age of the oldest waiting.")
final class StatusCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--json", description = "print one JSON object instead of text")
  boolean json;

  StatusCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    RelayConfig config = database.read(context);
    try (OutboxAccess access = new OutboxAccess(config)) {
      Instant now = context.clock().instant();
      OutboxStats stats = access.store().stats(now);
      double lag = stats.oldestPending().map(oldest -> Duration.between(oldest, now).toMillis() / 1000.0).orElse(0.0);
      if (json) {
        context.out().printf(java.util.Locale.ROOT,
            "{\"pending\":%d,\"inFlight\":%d,\"quarantined\":%d,\"lagSeconds\":%.3f}%n",
            stats.pending(), stats.inFlight(), stats.quarantined(), Math.max(0, lag));
      } else {
        context.out().printf("outbox       %s (prefix %s)%n", config.database().displayUrl(),
            config.database().tablePrefix());
        context.out().printf("pending      %d%n", stats.pending());
        context.out().printf("in flight    %d%n", stats.inFlight());
        context.out().printf("quarantined  %d%n", stats.quarantined());
        context.out().printf(java.util.Locale.ROOT, "lag          %s%n", stats.oldestPending()
            .map(oldest -> String.format(java.util.Locale.ROOT, "%.1f s (oldest waiting entry written %s)",
                Math.max(0, lag), oldest)).orElse("0 (nothing waits)"));
      }
      context.out().flush();
      return ExitCodes.OK;
    }
  }
}
