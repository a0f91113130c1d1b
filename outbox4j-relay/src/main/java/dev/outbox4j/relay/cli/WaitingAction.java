package dev.outbox4j.relay.cli;

import dev.outbox4j.spi.WaitingSelector;
import java.io.Console;
import java.time.Instant;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The flow every bulk action on waiting entries shares ({@code park}, {@code discard --waiting}): count first and
 * print the count; with {@code --dry-run} stop there; change more than one entry only with {@code --yes}, or after a
 * "y" typed at a terminal; then change them in batches of {@value EntryActionCommand#BATCH}, each its own short unit of
 * work, and print how many changed (fewer than counted when relays claimed some meanwhile).
 *
 * <p>Not thread-safe; one per command.
 */
final class WaitingAction {
  private WaitingAction() {}

  /**
   * @param context the command's surroundings
   * @param access the open store
   * @param selector which waiting entries
   * @param action the action's word in the audit log
   * @param verb what the action does, for messages: {@code park}, {@code discard}
   * @param done the past tense: {@code parked}, {@code discarded}
   * @param dryRun whether to count only
   * @param yes whether the operator confirmed on the command line
   * @param batch changes one batch: (limit, now) → how many changed
   * @return the exit code
   */
  static int run(CliContext context, OutboxAccess access, WaitingSelector selector, String action, String verb,
      String done,
      boolean dryRun, boolean yes, BiFunction<Integer, Instant, Integer> batch) {
    int count = access.store().countWaiting(selector, context.clock().instant());
    context.out().println(count + " waiting " + entries(count) + " " + describe(selector)
        + " (pending or failed, not in flight)");
    context.out().flush();
    if (dryRun) {
      context.out().println("dry run: nothing was changed");
      context.out().flush();
      return ExitCodes.OK;
    }
    if (count == 0) {
      return ExitCodes.NOT_FOUND;
    }
    if (count > 1 && !yes) {
      Boolean answer = ask(verb + " " + count + " " + entries(count) + "?");
      if (answer == null) {
        context.err().println("add --yes to " + verb + " " + count + " entries (or --dry-run to count only);"
            + " nothing was changed");
        context.err().flush();
        return ExitCodes.USAGE;
      }
      if (!answer) {
        context.out().println("nothing was changed");
        context.out().flush();
        return ExitCodes.OK;
      }
    }
    long total = 0;
    for (int changed = EntryActionCommand.BATCH; changed == EntryActionCommand.BATCH; total += changed) {
      changed = batch.apply(EntryActionCommand.BATCH, context.clock().instant());
    }
    context.out().println(done + " " + total + " " + entries(total));
    context.out().flush();
    if (total > 0) {
      AuditLog.record(context, access.store(), action, "waiting entries " + describe(selector), total,
          "counted " + count + " first");
    }
    return total == 0 ? ExitCodes.NOT_FOUND : ExitCodes.OK;
  }

  /** @return the selector in words */
  static String describe(WaitingSelector selector) {
    String destination = selector.destination() == null ? "" : "for destination '" + selector.destination() + "'";
    String key = selector.orderingKey() == null ? "" : "of key '" + selector.orderingKey() + "'";
    return destination.isEmpty() ? key : key.isEmpty() ? destination : key + " " + destination;
  }

  private static String entries(long count) {
    return count == 1 ? "entry" : "entries";
  }

  /** @return the operator's answer at the terminal, or {@code null} when there is no terminal to ask at */
  private static @Nullable Boolean ask(String question) {
    Console console = System.console();
    if (console == null) {
      return null;
    }
    String line = console.readLine("%s [y/N] ", question);
    return line != null && (line.trim().equalsIgnoreCase("y") || line.trim().equalsIgnoreCase("yes"));
  }
}
