package dev.outbox4j.jdbc;

import dev.outbox4j.OutboxException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Listens on PostgreSQL for the outbox's NOTIFY (sent by a {@link JdbcOutbox} built with
 * {@link JdbcOutbox.Builder#withWakeUpNotify(boolean) withWakeUpNotify(true)}, or by any writer running
 * {@code SELECT pg_notify('<prefix>outbox', '')}) and runs a callback, typically {@code relay::wakeUp}, so an idle relay
 * reacts to a commit at once while its idle poll stays long.
 *
 * <p>Why a dedicated connection and thread: a LISTEN belongs to one session, and the driver delivers notifications
 * only to a connection that is read; {@code PGConnection.getNotifications(timeout)} blocks on the socket for at most
 * the given time, so the thread wakes at once on a notification and checks for shutdown at least that often. The
 * connection is held for the listener's life (take it from a plain {@link DataSource}, not from a small pool).
 * Notifications are hints, never the source of truth: when the connection breaks, the listener reconnects after a
 * pause and runs the callback once, so a commit missed meanwhile is still picked up; the relay's poll remains the
 * safety net. Through a transaction-mode pooler (PgBouncer in transaction mode) a LISTEN lasts only for the one
 * transaction that ran it, so the listener hears nothing and the relay works on its poll alone: give the listener a
 * data source that connects to the server directly.
 *
 * <p>Thread-safe. {@link #close()} stops the thread and closes the connection.
 */
public final class PostgresWakeUpListener implements AutoCloseable {
  /** Default longest block in one {@code getNotifications} call, which bounds how long {@link #close()} waits. */
  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(500);
  /** Default pause before reconnecting after the connection failed. */
  public static final Duration DEFAULT_RECONNECT_DELAY = Duration.ofSeconds(1);

  private final DataSource dataSource;
  private final String channel;
  private final Runnable onWakeUp;
  private final Duration pollTimeout;
  private final Duration reconnectDelay;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Thread thread;

  private PostgresWakeUpListener(DataSource dataSource, TableNames names, Runnable onWakeUp, Duration pollTimeout,
      Duration reconnectDelay, ThreadFactory threads) {
    this.dataSource = dataSource;
    this.channel = JdbcOutbox.channel(names);
    this.onWakeUp = onWakeUp;
    this.pollTimeout = pollTimeout;
    this.reconnectDelay = reconnectDelay;
    this.thread = threads.newThread(this::run);
  }

  /**
   * Starts listening on {@code <prefix>outbox} with the default poll timeout and reconnect delay, on a daemon thread.
   *
   * @param dataSource where to open the listening connection (held until {@link #close()})
   * @param names the table names whose channel to listen on
   * @param onWakeUp run on the listener thread after each batch of notifications; must be quick and not throw
   * @return the running listener
   */
  public static PostgresWakeUpListener start(DataSource dataSource, TableNames names, Runnable onWakeUp) {
    return start(dataSource, names, onWakeUp, DEFAULT_POLL_TIMEOUT, DEFAULT_RECONNECT_DELAY, runnable -> {
      Thread t = new Thread(runnable, "outbox4j-pg-listener");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * @param dataSource where to open the listening connection (held until {@link #close()})
   * @param names the table names whose channel to listen on
   * @param onWakeUp run on the listener thread after each batch of notifications; must be quick and not throw
   * @param pollTimeout longest block in one read; positive, at most a minute
   * @param reconnectDelay pause before reconnecting after a failure; positive
   * @param threads makes the listener thread
   * @return the running listener
   * @throws IllegalArgumentException if a duration is out of range
   */
  public static PostgresWakeUpListener start(DataSource dataSource, TableNames names, Runnable onWakeUp,
      Duration pollTimeout, Duration reconnectDelay, ThreadFactory threads) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(names, "names");
    Objects.requireNonNull(onWakeUp, "onWakeUp");
    if (pollTimeout.isNegative() || pollTimeout.isZero() || pollTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new IllegalArgumentException("pollTimeout must be positive and at most 1 minute, was " + pollTimeout);
    }
    if (reconnectDelay.isNegative() || reconnectDelay.isZero()) {
      throw new IllegalArgumentException("reconnectDelay must be positive, was " + reconnectDelay);
    }
    PostgresWakeUpListener listener =
        new PostgresWakeUpListener(dataSource, names, onWakeUp, pollTimeout, reconnectDelay, threads);
    listener.thread.start();
    return listener;
  }

  /** @return the channel listened on */
  public String channel() {
    return channel;
  }

  private void run() {
    while (stopped.getCount() > 0) {
      try (Connection listening = dataSource.getConnection()) {
        listening.setAutoCommit(true);
        try (Statement statement = listening.createStatement()) {
          // Quoted: pg_notify takes the channel verbatim, while an unquoted LISTEN would fold it to lower case and
          // never hear a prefix with capitals. The channel is a validated identifier, so quoting it is safe.
          statement.execute("LISTEN \"" + channel + "\"");
        }
        PGConnection postgres = listening.unwrap(PGConnection.class);
        onWakeUp.run(); // catch up with anything committed before the LISTEN took effect
        while (stopped.getCount() > 0) {
          PGNotification[] notifications = postgres.getNotifications((int) pollTimeout.toMillis());
          if (notifications != null && notifications.length > 0) {
            onWakeUp.run();
          }
        }
      } catch (SQLException | RuntimeException e) {
        awaitStop(reconnectDelay);
      }
    }
  }

  private void awaitStop(Duration delay) {
    try {
      stopped.await(delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopped.countDown();
    }
  }

  /**
   * Stops listening, waiting at most about one poll timeout for the thread to end.
   *
   * @throws OutboxException if interrupted while waiting
   */
  @Override
  public void close() {
    stopped.countDown();
    try {
      thread.join(pollTimeout.multipliedBy(4).toMillis() + 1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OutboxException("interrupted while stopping the PostgreSQL wake-up listener", e);
    }
  }
}
