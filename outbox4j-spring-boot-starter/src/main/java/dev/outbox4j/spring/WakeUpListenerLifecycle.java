package dev.outbox4j.spring;

import dev.outbox4j.OutboxException;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.PostgresDialect;
import dev.outbox4j.jdbc.PostgresWakeUpListener;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link PostgresWakeUpListener} beside the application's relay: when the store's database is PostgreSQL, it
 * LISTENs on the outbox's channel and wakes the relay on every NOTIFY, so a commit in another process (a writer with
 * {@code outbox4j.write.wake-up-notify=true}, or any writer that runs {@code pg_notify}) is delivered at once while the
 * relay's idle poll stays long. On any other database it does nothing.
 *
 * <p>It holds one connection of the data source for as long as it runs. Notifications are hints: the relay's poll stays
 * the safety net, so a listener that cannot start (the database is unreachable at startup) is logged, not fatal.
 *
 * <p>Its phase is just before {@link RelayLifecycle#PHASE}: it starts before the relay and stops after it.
 *
 * <p>Thread-safe.
 */
public final class WakeUpListenerLifecycle implements SmartLifecycle {
  /** The lifecycle phase: just before the relay's. */
  public static final int PHASE = RelayLifecycle.PHASE - 1;

  private static final System.Logger LOGGER = System.getLogger(WakeUpListenerLifecycle.class.getName());

  private final JdbcOutboxStore store;
  private final DataSource dataSource;
  private final Relay relay;
  private @Nullable PostgresWakeUpListener listener;

  /**
   * @param store the store, whose dialect and table names decide whether and where to listen
   * @param dataSource where the listening connection comes from
   * @param relay the relay to wake
   */
  public WakeUpListenerLifecycle(JdbcOutboxStore store, DataSource dataSource, Relay relay) {
    this.store = Objects.requireNonNull(store, "store");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.relay = Objects.requireNonNull(relay, "relay");
  }

  @Override
  public synchronized void start() {
    if (listener != null) {
      return;
    }
    try {
      if (store.dialect() instanceof PostgresDialect) {
        listener = PostgresWakeUpListener.start(dataSource, store.tableNames(), relay::wakeUp);
      }
    } catch (OutboxException e) {
      LOGGER.log(System.Logger.Level.WARNING, "outbox4j wake-up listener not started; the relay polls instead", e);
    }
  }

  @Override
  public synchronized void stop() {
    PostgresWakeUpListener running = listener;
    listener = null;
    if (running != null) {
      running.close();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return listener != null;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** @return the channel listened on, or {@code null} while not listening (not started, or not PostgreSQL) */
  public synchronized @Nullable String channel() {
    return listener == null ? null : listener.channel();
  }
}
