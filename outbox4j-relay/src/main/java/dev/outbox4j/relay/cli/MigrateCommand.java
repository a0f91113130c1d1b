package dev.outbox4j.relay.cli;

import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.config.RelayAssembly;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code migrate}: applies the outbox's SQL migrations, idempotently. */
@Command(name = "migrate", mixinStandardHelpOptions = true,
    description = "Create or update the outbox tables (the files under db/outbox4j/<database>/), idempotently;"
        + " with database.notify-trigger or database.key-numbering, also install PostgreSQL's triggers.")
final class MigrateCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  MigrateCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    RelayConfig config = database.read(context);
    try (OutboxAccess access = new OutboxAccess(config, true)) {
      int applied = access.store().migrate();
      context.out().println(applied == 0
          ? "the outbox tables in " + config.database().displayUrl() + " are up to date"
          : "applied " + applied + " migration" + (applied == 1 ? "" : "s") + " to "
              + config.database().displayUrl() + " (prefix " + config.database().tablePrefix() + ")");
      RelayAssembly.checkPostgresOnly(config, access.store());
      RelayAssembly.installPostgresTriggers(config, access.store()).forEach(context.out()::println);
      context.out().flush();
      return ExitCodes.OK;
    }
  }
}
