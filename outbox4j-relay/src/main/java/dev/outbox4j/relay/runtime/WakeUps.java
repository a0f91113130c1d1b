package dev.outbox4j.relay.runtime;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.jdbc.PostgresWakeUpListener;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The LISTEN/NOTIFY wake-ups of a relay process: one listening connection per database and channel, however many
 * outboxes listen there.
 *
 * <p>Why shared: the channel is the unqualified {@code <prefix>outbox}, the same for every schema of one database with
 * one table prefix, so fifty tenant schemas are one channel: one connection hears them all, instead of fifty
 * connections each held open for the process's life. A notification wakes every outbox on that channel (it does not
 * say which schema it came from); each then claims once and finds its table empty or not, which is the cost of a
 * notification, while an idle outbox otherwise sleeps its whole {@code relay.poll-max}.
 *
 * <p>Thread-safe.
 */
final class WakeUps implements AutoCloseable {
  private final Map<String, Channel> channels = new HashMap<>();

  /** An outbox listening: what wakes it, and what it hears when the notification can only be its own. */
  private record Waker(Runnable wake, Runnable own) {}

  private static final class Channel {
    final List<Waker> wakers = new CopyOnWriteArrayList<>();
    PostgresWakeUpListener listener;
    com.zaxxer.hikari.HikariDataSource pool;

    void notified() {
      List<Waker> now = List.copyOf(wakers);
      for (Waker waker : now) {
        if (now.size() == 1) {
          waker.own().run();
        }
        waker.wake().run();
      }
    }
  }

  /**
   * Has {@code wake} run on every notification of the outbox's channel, listening there now unless another outbox
   * already does.
   *
   * @param database the outbox's database
   * @param store the outbox's store (its channel)
   * @param wake what to run, typically {@code relay::wakeUp}
   * @param own what to run first when the notification can only be this outbox's (no other outbox listens on its
   *     channel), typically its {@link FairShare.Lane#woken}
   * @return what stops this outbox's wake-ups
   */
  synchronized AutoCloseable listen(RelayConfig.Database database, JdbcOutboxStore store, Runnable wake,
      Runnable own) {
    String channel = store.tableNames().unqualified("outbox");
    String key = database.url() + " " + database.username() + " " + channel;
    Channel shared = channels.get(key);
    if (shared == null) {
      Channel created = new Channel();
      created.pool = RelayAssembly.dataSource(database.withPoolSize(2), "outbox4j-relay-listen");
      try {
        created.listener = PostgresWakeUpListener.start(created.pool, store.tableNames(),
            () -> created.notified());
      } catch (RuntimeException e) {
        created.pool.close();
        throw e;
      }
      channels.put(key, created);
      shared = created;
    }
    Waker waker = new Waker(wake, own);
    shared.wakers.add(waker);
    Channel listening = shared;
    return () -> stop(key, listening, waker);
  }

  private synchronized void stop(String key, Channel channel, Waker waker) {
    channel.wakers.remove(waker);
    if (channel.wakers.isEmpty() && channels.remove(key) == channel) {
      channel.listener.close();
      channel.pool.close();
    }
  }

  /** Stops every listener. */
  @Override
  public synchronized void close() {
    for (Channel channel : channels.values()) {
      channel.listener.close();
      channel.pool.close();
    }
    channels.clear();
  }
}
