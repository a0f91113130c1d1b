package dev.outbox4j.relay.cli;

import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code audit}: the latest operator actions, newest first. */
@Command(name = "audit", mixinStandardHelpOptions = true,
    description = "List the latest operator actions, newest first: when (UTC), who (cli, the dashboard's admin token"
        + " name, the Spring principal or actuator), what, how many entries, on what, and any detail. Written by"
        + " requeue, discard, park, pause, resume and purge, the dashboard and the Spring Boot endpoint.")
final class AuditCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "how many, 1 to 1000 (default 20)")
  int limit;

  AuditCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    if (limit < 1 || limit > QuarantineQuery.MAX_LIMIT) {
      context.err().println("--limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + limit);
      context.err().flush();
      return ExitCodes.USAGE;
    }
    RelayConfig config = database.read(context);
    try (OutboxAccess access = new OutboxAccess(config)) {
      List<OperatorAction> actions = access.store().operatorActions(limit);
      if (database.outbox != null) {
        context.out().printf("outbox %s%n", config.firstOutboxName());
      }
      context.out().printf("%-27s  %-16s  %-15s  %7s  %s%n", "WHEN (UTC)", "WHO", "WHAT", "ENTRIES", "ON / DETAIL");
      for (OperatorAction action : actions) {
        context.out().printf("%-27s  %-16s  %-15s  %7d  %s%n", action.at(), oneLine(action.actor()), action.action(),
            action.entries(), oneLine(action.target()) + (action.detail().isEmpty() ? ""
                : " (" + oneLine(action.detail()) + ")"));
      }
      context.out().printf("%d operator action%s shown, newest first%n", actions.size(),
          actions.size() == 1 ? "" : "s");
      context.out().flush();
      return ExitCodes.OK;
    }
  }

  private static String oneLine(String text) {
    return text.replaceAll("\\s+", " ");
  }
}
