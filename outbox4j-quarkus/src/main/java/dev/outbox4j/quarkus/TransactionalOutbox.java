package dev.outbox4j.quarkus;

import dev.outbox4j.Message;
import dev.outbox4j.Outbox;
import dev.outbox4j.OutboxException;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Writes messages to the outbox inside the current JTA transaction (Narayana: a {@code @Transactional} method,
 * {@code QuarkusTransaction}): through the connection Agroal enlisted in that transaction, so the message commits or
 * rolls back with the application's own changes.
 *
 * <p>Why the checks: the outbox's promise is that a message exists exactly when the business change committed. With no
 * transaction in progress the write is refused ({@link OutboxTransactionRequiredException}) unless configured to open
 * its own ({@link WithoutTransaction#OWN_TRANSACTION}); and a connection in auto-commit mode is refused too, which is
 * what a datasource without JTA integration ({@code quarkus.datasource.jdbc.transactions=disabled}) hands out: each
 * statement would commit on its own, whatever the transaction later does.
 *
 * <p>After a transaction that wrote a message commits, {@code afterCommit} runs once (the relay in this application is
 * woken, so the message leaves at once instead of at the next poll).
 *
 * <p>Thread-safe; each call runs in its caller's transaction.
 */
public final class TransactionalOutbox {
  private final DataSource dataSource;
  private final Outbox<Connection> outbox;
  private final TransactionManager transactions;
  private final TransactionSynchronizationRegistry synchronizations;
  private final WithoutTransaction withoutTransaction;
  private final Runnable afterCommit;
  /** The key under which a transaction records that its after-commit wake-up is registered. */
  private final Object wakeUpKey = new Object();

  /**
   * @param dataSource the Agroal datasource with JTA integration, where the outbox tables live
   * @param outbox the writer (for example a {@code JdbcOutbox})
   * @param transactions Narayana's transaction manager
   * @param synchronizations where the after-commit callback is registered
   * @param withoutTransaction what to do with a write outside a transaction
   * @param afterCommit run after a transaction that wrote a message commits; must be quick and must not throw
   */
  public TransactionalOutbox(DataSource dataSource, Outbox<Connection> outbox, TransactionManager transactions,
      TransactionSynchronizationRegistry synchronizations, WithoutTransaction withoutTransaction,
      Runnable afterCommit) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.transactions = Objects.requireNonNull(transactions, "transactions");
    this.synchronizations = Objects.requireNonNull(synchronizations, "synchronizations");
    this.withoutTransaction = Objects.requireNonNull(withoutTransaction, "withoutTransaction");
    this.afterCommit = Objects.requireNonNull(afterCommit, "afterCommit");
  }

  /**
   * Writes one message in the current transaction.
   *
   * @param message the message
   * @throws OutboxTransactionRequiredException if no transaction is in progress and none may be opened
   * @throws dev.outbox4j.MessageRejectedException if the message breaks a limit; nothing was written
   * @throws OutboxException if the write fails
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
   * @throws OutboxException if the write fails
   */
  public void writeAll(List<Message> messages) {
    Objects.requireNonNull(messages, "messages");
    if (!inTransaction()) {
      if (withoutTransaction == WithoutTransaction.REFUSE) {
        throw new OutboxTransactionRequiredException("none is active");
      }
      QuarkusTransaction.requiringNew().run(() -> writeInTransaction(messages));
      return;
    }
    writeInTransaction(messages);
  }

  private boolean inTransaction() {
    try {
      int status = transactions.getStatus();
      return status == Status.STATUS_ACTIVE || status == Status.STATUS_MARKED_ROLLBACK;
    } catch (SystemException e) {
      throw new OutboxException("cannot read the JTA transaction's status: " + e.getMessage(), e);
    }
  }

  private void writeInTransaction(List<Message> messages) {
    // Agroal hands out the connection enlisted in this transaction; closing the handle keeps it until completion.
    try (Connection connection = dataSource.getConnection()) {
      if (connection.getAutoCommit()) {
        throw new OutboxTransactionRequiredException(
            "the datasource does not take part in JTA transactions: its connection is in auto-commit mode");
      }
      outbox.writeAll(connection, messages);
    } catch (SQLException e) {
      throw new OutboxException("cannot use the transaction's connection: " + e.getMessage(), e);
    }
    if (!messages.isEmpty() && synchronizations.getResource(wakeUpKey) == null) {
      synchronizations.putResource(wakeUpKey, Boolean.TRUE);
      synchronizations.registerInterposedSynchronization(new Synchronization() {
        @Override
        public void beforeCompletion() {}

        @Override
        public void afterCompletion(int status) {
          if (status == Status.STATUS_COMMITTED) {
            afterCommit.run();
          }
        }
      });
    }
  }
}
