package dev.outbox4j.relay.cli;

import dev.outbox4j.OutboxException;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OutboxStore;

/**
 * Records what an operator command changed in the outbox's audit log ({@link OutboxStore#recordOperatorAction}), with
 * the actor {@value #ACTOR}. Only changes are recorded, after they were applied: a dry run, a refusal or an action that
 * matched nothing is not. If the line cannot be written (a database migrated before the audit table existed), the
 * command says so on standard error and keeps its exit code: the change itself was made.
 *
 * <p>Stateless and thread-safe.
 */
final class AuditLog {
  /** Who the command line is in the audit log. */
  static final String ACTOR = "cli";

  private AuditLog() {}

  /**
   * @param context where to warn
   * @param store the outbox
   * @param action what, such as {@link OperatorAction#REQUEUE}
   * @param target what it acted on, in words
   * @param entries how many entries changed
   * @param detail anything else; may be empty
   */
  static void record(CliContext context, OutboxStore store, String action, String target, long entries,
      String detail) {
    try {
      store.recordOperatorAction(OperatorAction.of(context.clock().instant(), ACTOR, action, target, entries, detail));
    } catch (OutboxException e) {
      context.err().println("warning: the " + action + " was applied but not recorded in the audit log ("
          + RelayAssembly.rootMessage(e) + "); run 'migrate' to create the audit table");
      context.err().flush();
    }
  }
}
