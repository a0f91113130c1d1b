package dev.outbox4j.relay.cli;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.QuarantineSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code requeue} and {@code discard}: the operator's two ways out of quarantine, for the entries named by id or for
 * every entry a selection matches (after an outage or a fixed bug), in batches of {@value #BATCH}. A selection is
 * counted first and the count printed ({@link BulkAction}); {@code --dry-run} stops there; a discard of more than one
 * entry needs {@code --yes} or a "y" at a terminal.
 */
abstract class EntryActionCommand implements Callable<Integer> {
  /** Entries changed per unit of work of a bulk action, so a large one never holds long locks. */
  static final int BATCH = 500;

  private final CliContext context;

  @Mixin DatabaseOptions database = new DatabaseOptions();

  @Parameters(arity = "0..*", paramLabel = "ID", description = "entry ids (as listed by 'quarantined')")
  List<String> ids = new ArrayList<>();

  @Option(names = "--all", description = "every entry waiting for an operator (quarantined or parked)")
  boolean all;

  @Option(names = "--key", paramLabel = "KEY", description = "only the entries of this ordering key")
  @Nullable String key;

  @Option(names = "--destination", paramLabel = "DEST", description = "only the entries for this destination")
  @Nullable String destination;

  @Option(names = "--reason", paramLabel = "TEXT", description = "only the entries whose reason contains TEXT")
  @Nullable String reason;

  @Option(names = "--waiting", description = "discard only: the waiting entries (pending or failed, not in flight)"
      + " of --destination and/or --key instead of quarantined ones; prints the count first")
  boolean waiting;

  @Option(names = "--dry-run", description = "print how many entries match and change nothing")
  boolean dryRun;

  @Option(names = "--yes", description = "discard more than one entry without asking")
  boolean yes;

  @Option(names = "--kind", paramLabel = "KIND",
      description = "only quarantined entries of this kind: ${COMPLETION-CANDIDATES}")
  @Nullable QuarantineKind kind;

  EntryActionCommand(CliContext context) {
    this.context = context;
  }

  abstract boolean apply(JdbcOutboxStore store, UUID id);

  /** @return how many of the selected entries one batch changed */
  abstract int applyAll(JdbcOutboxStore store, QuarantineSelector selector, int limit);

  abstract String done();

  /** @return what the action does, for messages: {@code requeue}, {@code discard} */
  abstract String verb();

  /** @return whether acting on more than one entry needs a confirmation ({@code --yes}, or a "y" at a terminal) */
  abstract boolean destructive();

  /** @return the action's word in the audit log */
  abstract String action();

  /** @return the exit code of the action on waiting entries; only {@code discard} has one */
  int callForWaiting() {
    context.err().println("--waiting is an option of 'discard' (and see 'park')");
    context.err().flush();
    return ExitCodes.USAGE;
  }

  @Override
  public Integer call() {
    if (waiting) {
      if (!ids.isEmpty() || all || reason != null || kind != null) {
        context.err().println("--waiting selects by --destination and/or --key only");
        context.err().flush();
        return ExitCodes.USAGE;
      }
      return callForWaiting();
    }
    boolean selecting = all || key != null || destination != null || reason != null || kind != null;
    if (selecting == !ids.isEmpty()) {
      context.err().println(selecting
          ? "give entry ids or a selection (--all, --key, --destination, --reason, --kind), not both"
          : "give entry ids, or select entries with --all, --key, --destination, --reason or --kind");
      context.err().flush();
      return ExitCodes.USAGE;
    }
    return selecting ? callForSelection() : callForIds();
  }

  private Integer callForSelection() {
    QuarantineSelector selector;
    try {
      selector = new QuarantineSelector(key, destination, reason, kind);
    } catch (IllegalArgumentException e) {
      context.err().println(e.getMessage());
      context.err().flush();
      return ExitCodes.USAGE;
    }
    try (OutboxAccess access = new OutboxAccess(database.read(context))) {
      JdbcOutboxStore store = access.store();
      long count = store.countQuarantined(selector);
      long[] changed = {0};
      int code = BulkAction.run(context, count, count + " " + BulkAction.entries(count)
          + " waiting for an operator (quarantined or parked)" + describe(selector), verb(), done(), dryRun,
          destructive(), yes, "requeued, discarded or changed by someone else", (limit, now) -> {
            int batch = applyAll(store, selector, limit);
            changed[0] += batch;
            return batch;
          });
      if (changed[0] > 0) {
        AuditLog.record(context, store, action(), "entries waiting for an operator: " + selector.describe(),
            changed[0], changed[0] < count ? "counted " + count + " first; " + (count - changed[0])
                + " changed meanwhile" : "counted " + count + " first");
      }
      return code;
    }
  }

  private Integer callForIds() {
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
      List<UUID> changed = new ArrayList<>();
      if (dryRun) {
        for (UUID id : parsed) {
          boolean waits = access.store().find(id).map(entry -> entry.status().awaitsOperator()).orElse(false);
          if (waits) {
            context.out().println("would " + verb() + " " + id);
          } else {
            missing++;
            context.err().println("no quarantined entry " + id);
          }
        }
        context.out().println("dry run: nothing was changed");
        context.out().flush();
        context.err().flush();
        return missing == 0 ? ExitCodes.OK : ExitCodes.NOT_FOUND;
      }
      Integer refused = destructive() ? BulkAction.confirm(context, verb(), parsed.size(), yes) : null;
      if (refused != null) {
        return refused;
      }
      for (UUID id : parsed) {
        if (apply(access.store(), id)) {
          changed.add(id);
          context.out().println(done() + " " + id);
        } else {
          missing++;
          context.err().println("no quarantined entry " + id);
        }
      }
      if (!changed.isEmpty()) {
        AuditLog.record(context, access.store(), action(), (changed.size() == 1 ? "entry " : "entries ")
            + String.join(", ", changed.stream().map(UUID::toString).toList()), changed.size(), "");
      }
    }
    context.out().flush();
    context.err().flush();
    return missing == 0 ? ExitCodes.OK : ExitCodes.NOT_FOUND;
  }

  /** @return the selection in words, after the count: {@code  of key 'k' for destination 'd' ...}; empty for all */
  private static String describe(QuarantineSelector selector) {
    StringBuilder text = new StringBuilder();
    if (selector.orderingKey() != null) {
      text.append(" of key '").append(selector.orderingKey()).append('\'');
    }
    if (selector.destination() != null) {
      text.append(" for destination '").append(selector.destination()).append('\'');
    }
    if (selector.kind() != null) {
      text.append(" of kind ").append(selector.kind());
    }
    if (selector.reasonContains() != null) {
      text.append(" whose reason contains '").append(selector.reasonContains()).append('\'');
    }
    return text.toString();
  }

  CliContext context() {
    return context;
  }

  @Command(name = "requeue", mixinStandardHelpOptions = true,
      description = {"Put quarantined entries back in line: pending, attempts reset, available now.",
          "A selection (--all, --key, --destination, --reason, --kind) prints its count first; --dry-run stops there."})
  static final class Requeue extends EntryActionCommand {
    Requeue(CliContext context) {
      super(context);
    }

    @Override
    boolean apply(JdbcOutboxStore store, UUID id) {
      return store.requeue(id, context().clock().instant());
    }

    @Override
    int applyAll(JdbcOutboxStore store, QuarantineSelector selector, int limit) {
      return store.requeueAll(selector, context().clock().instant(), limit);
    }

    @Override
    String done() {
      return "requeued";
    }

    @Override
    String verb() {
      return "requeue";
    }

    @Override
    boolean destructive() {
      return false;
    }

    @Override
    String action() {
      return OperatorAction.REQUEUE;
    }
  }

  @Command(name = "discard", mixinStandardHelpOptions = true,
      description = {"Delete quarantined entries for good, unblocking their ordering keys.",
          "A selection (--all, --key, --destination, --reason, --kind) prints its count first; --dry-run stops there;"
              + " more than one entry needs --yes (or a 'y' at a terminal).",
          "With --waiting: delete the waiting entries of a destination and/or key for good (never one in flight);"
              + " prints the count first; more than one entry needs --yes (or a 'y' at a terminal)."})
  static final class Discard extends EntryActionCommand {
    Discard(CliContext context) {
      super(context);
    }

    @Override
    int callForWaiting() {
      dev.outbox4j.spi.WaitingSelector selector = ParkCommand.selector(context(), key, destination);
      if (selector == null) {
        return ExitCodes.USAGE;
      }
      try (OutboxAccess access = new OutboxAccess(database.read(context()))) {
        return WaitingAction.run(context(), access, selector, OperatorAction.DISCARD_WAITING, "discard", "discarded",
            dryRun, yes,
            (limit, now) -> access.store().discardWaiting(selector, now, limit));
      }
    }

    @Override
    boolean apply(JdbcOutboxStore store, UUID id) {
      return store.discard(id);
    }

    @Override
    int applyAll(JdbcOutboxStore store, QuarantineSelector selector, int limit) {
      return store.discardAll(selector, limit);
    }

    @Override
    String done() {
      return "discarded";
    }

    @Override
    String verb() {
      return "discard";
    }

    @Override
    boolean destructive() {
      return true;
    }

    @Override
    String action() {
      return OperatorAction.DISCARD;
    }
  }
}
