package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxException;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The opt-in statement-level trigger that has PostgreSQL itself notify the outbox's wake-up channel whenever rows are
 * inserted, so a relay listening with {@link PostgresWakeUpListener} hears every commit, whoever wrote it: a Java
 * writer without {@link JdbcOutbox.Builder#withWakeUpNotify}, or another application inserting with plain SQL.
 *
 * <p>Why a trigger and not the writer: a writer in another language knows nothing of outbox4j's channel, and asking
 * every writer to add {@code pg_notify} is a promise nobody checks. Why {@code FOR EACH STATEMENT}: one notification
 * per insert statement, not per row, and PostgreSQL folds identical notifications of one transaction into one, so a
 * transaction that inserts a thousand rows, or also notifies from the Java writer, still sends one. A notification is
 * sent at commit and never for a rollback. Its cost is the notification queue's lock at commit (docs/schema.md,
 * "PostgreSQL wake-up").
 *
 * <p>Installing is idempotent ({@code CREATE OR REPLACE FUNCTION}, the trigger dropped and created in one
 * transaction) and needs the right to create functions and triggers on the outbox table; removing leaves no object
 * behind. The channel is the validated identifier {@link JdbcOutbox#channel}, inlined as a literal; nothing else is
 * interpolated but validated table names.
 *
 * <p>Immutable and thread-safe.
 */
final class PostgresNotifyTrigger {
  private final DataSource dataSource;
  private final TableNames names;

  PostgresNotifyTrigger(DataSource dataSource, TableNames names) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.names = Objects.requireNonNull(names, "names");
  }

  /** @return the statements that install the trigger, in order, for these table names */
  List<String> installStatements() {
    String function = names.qualified("outbox_notify");
    return List.of(
        "CREATE OR REPLACE FUNCTION " + function + "() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            + "BEGIN\n"
            + "  PERFORM pg_notify('" + JdbcOutbox.channel(names) + "', '');\n"
            + "  RETURN NULL;\n"
            + "END $$",
        dropTrigger(),
        "CREATE TRIGGER " + trigger() + " AFTER INSERT ON " + names.qualified("outbox")
            + " FOR EACH STATEMENT EXECUTE FUNCTION " + function + "()");
  }

  /** @return the statements that remove the trigger and its function */
  List<String> removeStatements() {
    return List.of(dropTrigger(), "DROP FUNCTION IF EXISTS " + names.qualified("outbox_notify") + "()");
  }

  void install() {
    run(installStatements(), "install");
  }

  void remove() {
    run(removeStatements(), "remove");
  }

  /** @return whether the outbox table has the trigger */
  boolean installed() {
    try {
      return PostgresTriggers.type(dataSource, names.qualified("outbox"), trigger()).isPresent();
    } catch (SQLException e) {
      throw new OutboxException("could not read the triggers of " + names.qualified("outbox") + ": " + e.getMessage(),
          e);
    }
  }

  private String trigger() {
    return names.unqualified("tg_outbox_notify");
  }

  private String dropTrigger() {
    return "DROP TRIGGER IF EXISTS " + trigger() + " ON " + names.qualified("outbox");
  }

  private void run(List<String> statements, String what) {
    try {
      PostgresTriggers.inOneTransaction(dataSource, statements);
    } catch (SQLException e) {
      throw new OutboxException("could not " + what + " the notify trigger on " + names.qualified("outbox") + ": "
          + e.getMessage(), e);
    }
  }
}
