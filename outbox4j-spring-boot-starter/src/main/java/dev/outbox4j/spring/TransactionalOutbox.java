package dev.outbox4j.spring;

import dev.outbox4j.Message;
import dev.outbox4j.Outbox;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes messages to the outbox inside the current Spring-managed transaction: the same connection, the same commit or
 * rollback as the application's own changes (a {@code @Transactional} method, a {@code TransactionTemplate}).
 *
 * <p>Why the checks: the outbox's promise is that a message exists exactly when the business change committed. So the
 * connection is the one Spring bound to the transaction ({@link DataSourceUtils#getConnection}); with no transaction
 * in progress the write is refused ({@link OutboxTransactionRequiredException}) unless configured to open its own
 * ({@link WithoutTransaction#OWN_TRANSACTION}); and a connection in auto-commit mode is refused too, which is what a
 * transaction managed for a different {@code DataSource} (or a mere synchronization scope) would hand out: each
 * statement would commit on its own, whatever the transaction later does.
 *
 * <p>After the transaction commits, the relay in this application (if any) is woken, so the message leaves at once
 * instead of at the next poll.
 *
 * <p>Thread-safe; each call runs in its caller's transaction.
 */
public final class TransactionalOutbox {
  private final DataSource dataSource;
  private final Outbox<Connection> outbox;
  private final @Nullable TransactionTemplate ownTransaction;
  private final Runnable afterCommit;
  private final @Nullable String name;

  /**
   * @param dataSource the application's {@code DataSource}, on which the transaction manager runs
   * @param outbox the writer (for example a {@code JdbcOutbox}, possibly traced)
   * @param ownTransaction opens a transaction when none is in progress, or {@code null} to refuse such writes
   * @param afterCommit run after a transaction that wrote a message commits (for example {@code relay::wakeUp});
   *     must be quick and must not throw
   */
  public TransactionalOutbox(DataSource dataSource, Outbox<Connection> outbox,
      @Nullable TransactionTemplate ownTransaction, Runnable afterCommit) {
    this(dataSource, outbox, ownTransaction, afterCommit, null);
  }

  /**
   * @param dataSource the {@code DataSource} of this outbox's tables, on which its transaction manager runs
   * @param outbox the writer (for example a {@code JdbcOutbox}, possibly traced)
   * @param ownTransaction opens a transaction on that {@code DataSource} when none is in progress, or {@code null}
   *     to refuse such writes
   * @param afterCommit run after a transaction that wrote a message commits; must be quick and must not throw
   * @param name the outbox's name when it is one of several ({@code outbox4j.outboxes.<name>}), named by the refusal;
   *     {@code null} for the single outbox
   */
  public TransactionalOutbox(DataSource dataSource, Outbox<Connection> outbox,
      @Nullable TransactionTemplate ownTransaction, Runnable afterCommit, @Nullable String name) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.ownTransaction = ownTransaction;
    this.afterCommit = Objects.requireNonNull(afterCommit, "afterCommit");
    this.name = name;
  }

  /** @return the outbox's name when it is one of several, or {@code null} for the single outbox */
  public @Nullable String name() {
    return name;
  }

  /**
   * Writes one message in the current transaction.
   *
   * @param message the message
   * @throws OutboxTransactionRequiredException if no transaction is in progress on this {@code DataSource} and none
   *     may be opened
   * @throws dev.outbox4j.MessageRejectedException if the message breaks a limit; nothing was written
   * @throws dev.outbox4j.OutboxException if the write fails
   */
  public void write(Message message) {
    writeAll(List.of(Objects.requireNonNull(message, "message")));
  }

  /**
   * Writes several messages in the current transaction, in list order.
   *
   * @param messages the messages; an empty list writes nothing
   * @throws OutboxTransactionRequiredException if no transaction is in progress and none may be opened
   * @throws dev.outbox4j.MessageRejectedException if any message breaks a limit; nothing was written
   * @throws dev.outbox4j.OutboxException if the write fails
   */
  public void writeAll(List<Message> messages) {
    Objects.requireNonNull(messages, "messages");
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      if (ownTransaction == null) {
        throw refused("none is active");
      }
      ownTransaction.executeWithoutResult(status -> writeInTransaction(messages));
      return;
    }
    writeInTransaction(messages);
  }

  private OutboxTransactionRequiredException refused(String detail) {
    return name == null ? new OutboxTransactionRequiredException(detail)
        : new OutboxTransactionRequiredException(detail, name);
  }

  private void writeInTransaction(List<Message> messages) {
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      if (connection.getAutoCommit()) {
        throw refused(
            "the active transaction does not manage this DataSource: its connection is in auto-commit mode");
      }
      outbox.writeAll(connection, messages);
    } catch (SQLException e) {
      throw new dev.outbox4j.OutboxException("cannot inspect the transaction's connection: " + e.getMessage(), e);
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
    if (!messages.isEmpty() && TransactionSynchronizationManager.isSynchronizationActive()) {
      TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
        @Override
        public void afterCommit() {
          afterCommit.run();
        }
      });
    }
  }
}
