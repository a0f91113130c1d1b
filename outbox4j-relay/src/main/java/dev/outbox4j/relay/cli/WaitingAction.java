package dev.outbox4j.relay.cli;

import dev.outbox4j.spi.WaitingSelector;
import java.time.Instant;
import java.util.function.BiFunction;

/**
 * Actions on waiting entries ({@code park}, {@code discard --waiting}): count the entries a {@link WaitingSelector}
 * matches, then the {@link BulkAction} flow (print the count, {@code --dry-run}, {@code --yes} for more than one).
 *
 * <p>Stateless and thread-safe.
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
      String done, boolean dryRun, boolean yes, BiFunction<Integer, Instant, Integer> batch) {
    int count = access.store().countWaiting(selector, context.clock().instant());
    long[] changed = {0};
    int code = BulkAction.run(context, count, count + " waiting " + BulkAction.entries(count) + " "
        + describe(selector) + " (pending or failed, not in flight)", verb, done, dryRun, true, yes,
        "claimed by a relay, delivered or changed by someone else", (limit, now) -> {
          int one = batch.apply(limit, now);
          changed[0] += one;
          return one;
        });
    if (changed[0] > 0) {
      AuditLog.record(context, access.store(), action, "waiting entries " + describe(selector), changed[0],
          changed[0] < count ? "counted " + count + " first; " + (count - changed[0]) + " changed meanwhile"
              : "counted " + count + " first");
    }
    return code;
  }

  /** @return the selector in words */
  static String describe(WaitingSelector selector) {
    String destination = selector.destination() == null ? "" : "for destination '" + selector.destination() + "'";
    String key = selector.orderingKey() == null ? "" : "of key '" + selector.orderingKey() + "'";
    return destination.isEmpty() ? key : key.isEmpty() ? destination : key + " " + destination;
  }
}
