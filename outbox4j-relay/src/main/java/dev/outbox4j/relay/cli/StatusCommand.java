package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStats;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code status}: the outbox's counts and lag, and the destinations an operator paused. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Show how many entries wait, are in flight and are quarantined, the age of the oldest waiting, and"
        + " the destinations an operator paused.")
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
      List<OperatorPause> pauses;
      try {
        pauses = access.store().operatorPauses();
      } catch (dev.outbox4j.OutboxException e) {
        context.err().println("could not read the destination pauses (run 'migrate'?): " + e.getMessage());
        context.err().flush();
        pauses = List.of();
      }
      double lag = stats.oldestPending().map(oldest -> Duration.between(oldest, now).toMillis() / 1000.0).orElse(0.0);
      if (json) {
        context.out().printf(java.util.Locale.ROOT,
            "{\"pending\":%d,\"inFlight\":%d,\"quarantined\":%d,\"lagSeconds\":%.3f,\"pausedDestinations\":[%s]}%n",
            stats.pending(), stats.inFlight(), stats.quarantined(), Math.max(0, lag), String.join(",",
                pauses.stream().map(p -> "{\"destination\":" + quote(p.destination()) + ",\"pausedBy\":"
                    + quote(p.pausedBy()) + ",\"pausedAt\":" + quote(p.pausedAt().toString()) + ",\"reason\":"
                    + quote(p.reason()) + "}").toList()));
      } else {
        context.out().printf("outbox       %s (prefix %s)%n", config.database().displayUrl(),
            config.database().tablePrefix());
        context.out().printf("pending      %d%n", stats.pending());
        context.out().printf("in flight    %d%n", stats.inFlight());
        context.out().printf("quarantined  %d%n", stats.quarantined());
        context.out().printf(java.util.Locale.ROOT, "lag          %s%n", stats.oldestPending()
            .map(oldest -> String.format(java.util.Locale.ROOT, "%.1f s (oldest waiting entry written %s)",
                Math.max(0, lag), oldest)).orElse("0 (nothing waits)"));
        if (pauses.isEmpty()) {
          context.out().printf("paused       none%n");
        }
        for (OperatorPause pause : pauses) {
          context.out().printf("paused       %s  %s (since %s)%n", pause.destination(), pause.heldBackReason(),
              pause.pausedAt());
        }
      }
      context.out().flush();
      return ExitCodes.OK;
    }
  }

  /** @return {@code text} as a JSON string */
  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < 0x20) {
            out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
