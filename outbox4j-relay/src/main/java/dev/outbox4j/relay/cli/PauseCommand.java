package dev.outbox4j.relay.cli;

import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code pause} and {@code resume}: an operator's pause of one destination, for every relay on the outbox. Relays read
 * the pauses about once a second.
 */
final class PauseCommand {
  private PauseCommand() {}

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Pause a destination for every relay on this outbox: its entries are held back (no attempt"
          + " counted, no probe) while every other destination flows, until 'resume'. Relays notice within about a"
          + " second.")
  static final class Pause implements Callable<Integer> {
    private final CliContext context;

    @Mixin DatabaseOptions database = new DatabaseOptions();

    @Option(names = "--destination", required = true, paramLabel = "DEST", description = "the destination")
    String destination = "";

    @Option(names = "--reason", paramLabel = "TEXT", defaultValue = "", description = "why, shown by 'status'")
    String reason = "";

    @Option(names = "--by", paramLabel = "NAME",
        description = "who pauses it (default: the USER or USERNAME environment variable, else 'operator')")
    String by = "";

    Pause(CliContext context) {
      this.context = context;
    }

    @Override
    public Integer call() {
      String who = !by.isBlank() ? by
          : context.environment().getOrDefault("USER", context.environment().getOrDefault("USERNAME", "operator"));
      try (OutboxAccess access = new OutboxAccess(database.read(context))) {
        boolean paused;
        try {
          paused = access.store().pauseDestination(destination, who, reason, context.clock().instant());
        } catch (IllegalArgumentException e) {
          context.err().println(e.getMessage());
          context.err().flush();
          return ExitCodes.USAGE;
        }
        if (paused) {
          context.out().println("paused destination '" + destination + "' for every relay (they notice within"
              + " about a second)");
          AuditLog.record(context, access.store(), OperatorAction.PAUSE, "destination '" + destination + "'", 0,
              "by " + who + (reason.isEmpty() ? "" : ": " + reason));
        } else {
          OperatorPause pause = access.store().operatorPauses().stream()
              .filter(p -> p.destination().equals(destination)).findFirst().orElse(null);
          context.out().println("destination '" + destination + "' is already paused"
              + (pause == null ? "" : ": " + pause.heldBackReason() + " (since " + pause.pausedAt() + ")"));
        }
        context.out().flush();
        return ExitCodes.OK;
      }
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "End an operator's pause of a destination; relays send its entries again within a few seconds.")
  static final class Resume implements Callable<Integer> {
    private final CliContext context;

    @Mixin DatabaseOptions database = new DatabaseOptions();

    @Option(names = "--destination", required = true, paramLabel = "DEST", description = "the destination")
    String destination = "";

    Resume(CliContext context) {
      this.context = context;
    }

    @Override
    public Integer call() {
      try (OutboxAccess access = new OutboxAccess(database.read(context))) {
        if (access.store().resumeDestination(destination)) {
          context.out().println("resumed destination '" + destination + "'");
          AuditLog.record(context, access.store(), OperatorAction.RESUME, "destination '" + destination + "'", 0, "");
          context.out().flush();
          return ExitCodes.OK;
        }
        context.err().println("destination '" + destination + "' is not paused by an operator");
        context.err().flush();
        return ExitCodes.NOT_FOUND;
      }
    }
  }
}
