package dev.outbox4j.relay.cli;

import java.io.Console;
import dev.outbox4j.relay.server.Shortfall;
import java.time.Instant;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The flow every action on many entries shares ({@code park}, {@code discard --waiting}, {@code requeue} and
 * {@code discard} of a selection or of several ids): the caller counts first and the count is printed; with
 * {@code --dry-run} nothing more happens; a destructive action on more than one entry needs {@code --yes}, or a "y"
 * typed at a terminal; then the entries change in batches of {@value EntryActionCommand#BATCH}, each its own short unit
 * of work, never more than were counted (and confirmed), and how many changed is printed; fewer than counted (relays
 * or other operators changed some meanwhile) is said, with how many and why ({@link Shortfall}).
 *
 * <p>Stateless and thread-safe; the terminal it asks at is the process's.
 */
final class BulkAction {
  private BulkAction() {}

  /**
   * @param context the command's surroundings
   * @param count how many entries the selection matches now
   * @param counted the count in words, printed first, for example {@code 3 waiting entries for destination 'erp'}
   * @param verb what the action does, for messages: {@code park}, {@code discard}, {@code requeue}
   * @param done the past tense: {@code parked}, {@code discarded}, {@code requeued}
   * @param dryRun whether to count only
   * @param destructive whether changing more than one entry needs a confirmation
   * @param yes whether the operator confirmed on the command line
   * @param gone what can have become of counted entries that did not change, after "were": {@code claimed by a relay
   *     or changed by someone else}
   * @param batch changes one batch: (limit, now) → how many changed
   * @return the exit code: {@link ExitCodes#OK}, {@link ExitCodes#NOT_FOUND} when nothing matched or changed,
   *     {@link ExitCodes#USAGE} when a confirmation was needed and none could be asked for
   */
  static int run(CliContext context, long count, String counted, String verb, String done, boolean dryRun,
      boolean destructive, boolean yes, String gone, BiFunction<Integer, Instant, Integer> batch) {
    context.out().println(counted);
    context.out().flush();
    if (dryRun) {
      context.out().println("dry run: nothing was changed");
      context.out().flush();
      return ExitCodes.OK;
    }
    if (count == 0) {
      return ExitCodes.NOT_FOUND;
    }
    Integer refused = destructive ? confirm(context, verb, count, yes) : null;
    if (refused != null) {
      return refused;
    }
    long total = 0;
    while (total < count) {
      int limit = (int) Math.min(EntryActionCommand.BATCH, count - total);
      int changed = batch.apply(limit, context.clock().instant());
      total += changed;
      if (changed < limit) {
        break;
      }
    }
    context.out().println(Shortfall.explain(done, total, count, "", gone));
    context.out().flush();
    return total == 0 ? ExitCodes.NOT_FOUND : ExitCodes.OK;
  }

  /**
   * Asks for the confirmation a destructive action on more than one entry needs.
   *
   * @param context the command's surroundings
   * @param verb what the action does
   * @param count how many entries it changes
   * @param yes whether the operator confirmed on the command line
   * @return {@code null} to go ahead; otherwise the exit code to stop with, after saying why: {@link ExitCodes#USAGE}
   *     when there is no terminal to ask at and no {@code --yes}, {@link ExitCodes#OK} when the operator said no
   */
  static @Nullable Integer confirm(CliContext context, String verb, long count, boolean yes) {
    if (count <= 1 || yes) {
      return null;
    }
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
    return null;
  }

  /** @return {@code entry} or {@code entries} */
  static String entries(long count) {
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
