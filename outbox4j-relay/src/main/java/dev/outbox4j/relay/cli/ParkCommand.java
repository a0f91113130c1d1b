package dev.outbox4j.relay.cli;

import dev.outbox4j.spi.WaitingSelector;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code park}: stops the waiting entries of a destination or a key from being sent, keeping their order. */
@Command(name = "park", mixinStandardHelpOptions = true,
    description = {"Park the waiting entries (pending or failed, not in flight) of a destination or an ordering key:"
        + " they are no longer sent, are listed by 'quarantined', and block their keys (order is kept) until"
        + " 'requeue' or 'discard'.",
        "Prints the count first; more than one entry needs --yes (or a 'y' at a terminal)."})
final class ParkCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--destination", paramLabel = "DEST", description = "the entries for this destination")
  @Nullable String destination;

  @Option(names = "--key", paramLabel = "KEY", description = "the entries of this ordering key")
  @Nullable String key;

  @Option(names = "--dry-run", description = "print how many entries match and change nothing")
  boolean dryRun;

  @Option(names = "--yes", description = "park more than one entry without asking")
  boolean yes;

  ParkCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    WaitingSelector selector = selector(context, key, destination);
    if (selector == null) {
      return ExitCodes.USAGE;
    }
    try (OutboxAccess access = new OutboxAccess(database.read(context))) {
      return WaitingAction.run(context, access, selector, dev.outbox4j.spi.OperatorAction.PARK, "park", "parked",
          dryRun, yes,
          (limit, now) -> access.store().parkWaiting(selector, now, limit));
    }
  }

  /** @return the selector, or {@code null} after printing why there is none */
  static @Nullable WaitingSelector selector(CliContext context, @Nullable String key, @Nullable String destination) {
    try {
      return new WaitingSelector(key, destination);
    } catch (IllegalArgumentException e) {
      context.err().println("select the waiting entries with --destination, --key or both: " + e.getMessage());
      context.err().flush();
      return null;
    }
  }
}
