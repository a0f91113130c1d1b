package dev.outbox4j.relay.cli;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code requeue} and {@code discard}: the operator's two ways out of quarantine, one entry id at a time. */
abstract class EntryActionCommand implements Callable<Integer> {
  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Parameters(arity = "1..*", paramLabel = "ID", description = "entry ids (as listed by 'quarantined')")
  List<String> ids = new ArrayList<>();

  EntryActionCommand(CliContext context) {
    this.context = context;
  }

  abstract boolean apply(JdbcOutboxStore store, UUID id);

  abstract String done();

  @Override
  public Integer call() {
    List<UUID> parsed = new ArrayList<>();
    for (String id : ids) {
      try {
        parsed.add(UUID.fromString(id));
      } catch (IllegalArgumentException e) {
        context.err().println("not an entry id: '" + id + "'");
        context.err().flush();
        return ExitCodes.USAGE;
      }
    }
    int missing = 0;
    try (OutboxAccess access = new OutboxAccess(database.read(context))) {
      for (UUID id : parsed) {
        if (apply(access.store(), id)) {
          context.out().println(done() + " " + id);
        } else {
          missing++;
          context.err().println("no quarantined entry " + id);
        }
      }
    }
    context.out().flush();
    context.err().flush();
    return missing == 0 ? ExitCodes.OK : ExitCodes.NOT_FOUND;
  }

  CliContext context() {
    return context;
  }

  @Command(name = "requeue", mixinStandardHelpOptions = true,
      description = "Put quarantined entries back in line: pending, attempts reset, available now.")
  static final class Requeue extends EntryActionCommand {
    Requeue(CliContext context) {
      super(context);
    }

    @Override
    boolean apply(JdbcOutboxStore store, UUID id) {
      return store.requeue(id, context().clock().instant());
    }

    @Override
    String done() {
      return "requeued";
    }
  }

  @Command(name = "discard", mixinStandardHelpOptions = true,
      description = "Delete quarantined entries for good, unblocking their ordering keys.")
  static final class Discard extends EntryActionCommand {
    Discard(CliContext context) {
      super(context);
    }

    @Override
    boolean apply(JdbcOutboxStore store, UUID id) {
      return store.discard(id);
    }

    @Override
    String done() {
      return "discarded";
    }
  }
}
