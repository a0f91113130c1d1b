package dev.outbox4j.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.BatchReport;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.jdbc.JdbcOutbox;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.Transport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One run of the horizon or soak scenario, sampled over time.
 *
 * <p>Writer threads commit one keyed message per transaction ({@value Outbox4jTables#KEYS} keys, round-robin) at a
 * fixed rate, open loop: transaction {@code i} starts at {@code start + i / rate}, so a slow commit does not lower the
 * offered rate. One relay with the default configuration ({@code Relay.builder(store, transport).build()}, the
 * database's default claim strategy) drains the table in the background, woken in-process after each commit; its
 * transport confirms at once and records the time. A bystander session runs an unrelated query on another table ten
 * times a second. Another session may hold a transaction open from {@code holdFrom} to {@code holdUntil}. Every
 * {@code sampleEvery} a {@link HorizonSample} is taken.
 *
 * <p>The transport also checks the stream: a message delivered again is a duplicate, one delivered after a message of
 * its key that committed later is reordered, and one never delivered by the end is lost. A key's commit order is not
 * its messages' index order (a writer that stalls commits its message after another writer committed the key's next
 * one), so each writer commits under its key's lock in this JVM and notes the message's rank in its key first: the
 * database orders a key's commits the same way (the key's row lock), and the rank is known before any delivery.
 *
 * <p>One instance is one run ({@link #run} makes it); its counters are shared by the writer, relay, sampler and timer
 * threads and are thread-safe.
 */
final class HorizonRun {
  private static final String INDEX_HEADER = "bench-index";
  private static final Duration BYSTANDER_EVERY = Duration.ofMillis(100);
  private static final Duration DRAIN_WAIT = Duration.ofMinutes(2);

  /**
   * @param name the run's name in reports, e.g. {@code baseline}
   * @param hold the transaction held open, or {@code null} for none
   * @param rate messages per second offered
   */
  record Settings(String name, HorizonOptions.@Nullable HoldKind hold, int rate, HorizonOptions options) {}

  /**
   * @param samples in time order
   * @param written messages committed
   * @param lost committed and never delivered
   * @param duplicates deliveries of a message already delivered
   * @param reordered messages delivered after a later message of their key
   * @param restarts relay restarts
   * @param activity what the database did to the outbox tables during the run ({@link HorizonProbe#activity})
   */
  record Series(Settings settings, List<HorizonSample> samples, long written, long lost, long duplicates,
      long reordered, int restarts, String activity) {}

  private final HorizonProbe probe;
  private final Settings settings;
  private final HorizonOptions options;
  private final int total;
  private final AtomicLongArray committedAt;
  /** Each message's place in its key's commit order, from 1; noted under the key's lock just before the commit. */
  private final int[] rankInKey;
  private final int[] commitsOfKey = new int[Outbox4jTables.KEYS];
  private final Object[] keyLocks = new Object[Outbox4jTables.KEYS];
  private final AtomicInteger committed = new AtomicInteger();
  private final Deliveries deliveries;
  private final ClaimTimes claimTimes = new ClaimTimes();
  private final Latencies bystander = new Latencies();
  private final AtomicReference<@Nullable Relay> relay = new AtomicReference<>();
  private final List<HorizonSample> samples = new ArrayList<>();
  private volatile boolean held;
  private int restarts;

  private HorizonRun(HorizonProbe probe, Settings settings) {
    this.probe = probe;
    this.settings = settings;
    this.options = settings.options();
    this.total = (int) Math.min(Integer.MAX_VALUE - 8, (long) settings.rate() * options.length().toMillis() / 1000);
    this.committedAt = new AtomicLongArray(total);
    this.rankInKey = new int[total];
    Arrays.setAll(keyLocks, key -> new Object());
    this.deliveries = new Deliveries(total);
  }

  /** Writes message {@code index} and commits it under its key's lock, noting its rank in the key's commit order. */
  private void writeAndCommit(JdbcOutbox outbox, Connection connection, int index) throws SQLException {
    int key = index % Outbox4jTables.KEYS;
    outbox.write(connection, Outbox4jTables.message("key-" + key).toBuilder()
        .withHeader(INDEX_HEADER, Integer.toString(index)).build());
    synchronized (keyLocks[key]) {
      synchronized (rankInKey) {
        rankInKey[index] = ++commitsOfKey[key];
      }
      connection.commit();
    }
  }

  /** Recreates the outbox tables, runs, and returns the samples. */
  static Series run(HorizonProbe probe, Settings settings) throws Exception {
    return new HorizonRun(probe, settings).run();
  }

  private Series run() throws Exception {
    probe.dropOutbox();
    String activity = "";
    probe.createBystander();
    Retention retention = options.keepDelivered().isZero() ? Retention.deleteOnDelivery()
        : Retention.keepFor(options.keepDelivered());
    ScheduledExecutorService timers = Executors.newScheduledThreadPool(2, runnable -> {
      Thread thread = new Thread(runnable, "bench-hz-timer");
      thread.setDaemon(true);
      return thread;
    });
    try (HikariDataSource writerPool = probe.pool("writers", options.writers(), false);
        HikariDataSource relayPool = probe.pool("relay", 4, true);
        Connection monitor = probe.connect();
        Connection holder = probe.connect();
        Connection bystanderConnection = probe.connect()) {
      JdbcOutboxStore store = JdbcOutboxStore.builder(relayPool).withTablePrefix(HorizonProbe.PREFIX)
          .withRetention(retention).build();
      store.migrate();
      probe.tune();
      JdbcOutbox outbox = store.outbox();
      probe.prepareHolder(holder);
      relay.set(startRelay(store));
      Thread bystanderThread = new Thread(() -> bystander(bystanderConnection), "bench-hz-bystander");
      bystanderThread.setDaemon(true);
      long start = System.nanoTime();
      bystanderThread.start();
      long step = options.sampleEvery().toNanos();
      long[] previous = {start, 0, 0};
      timers.scheduleAtFixedRate(() -> sample(monitor, previous), step, step, TimeUnit.NANOSECONDS);
      if (settings.hold() != null) {
        timers.schedule(() -> beginHold(holder), options.holdFrom().toNanos(), TimeUnit.NANOSECONDS);
        timers.schedule(() -> endHold(holder), options.holdUntil().toNanos(), TimeUnit.NANOSECONDS);
      }
      if (!options.restartEvery().isZero()) {
        long every = options.restartEvery().toNanos();
        timers.scheduleAtFixedRate(() -> restart(store), every, every, TimeUnit.NANOSECONDS);
      }
      long interval = 1_000_000_000L / settings.rate();
      Writers.run(writerPool, options.writers(), total, index -> {
        long due = start + index * interval;
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
          LockSupport.parkNanos(wait);
        }
      }, (connection, index) -> writeAndCommit(outbox, connection, index), index -> {
            committedAt.set(index, System.nanoTime());
            committed.incrementAndGet();
            Relay current = relay.get();
            if (current != null) {
              current.wakeUp();
            }
          });
      long samplesWanted = options.length().toNanos() / step;
      long deadline = System.nanoTime() + DRAIN_WAIT.toNanos();
      while (System.nanoTime() < deadline && (sampleCount() < samplesWanted || deliveries.distinct() < total)) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
      timers.shutdownNow();
      timers.awaitTermination(1, TimeUnit.MINUTES);
      endHold(holder);
      bystanderThread.interrupt();
      bystanderThread.join(Duration.ofSeconds(30).toMillis());
      Relay last = relay.getAndSet(null);
      if (last != null) {
        last.close();
      }
      activity = probe.activity(monitor);
    } finally {
      timers.shutdownNow();
    }
    synchronized (samples) {
      return new Series(settings, List.copyOf(samples), committed.get(), total - deliveries.distinct(),
          deliveries.duplicates(), deliveries.reordered(), restarts, activity);
    }
  }

  private int sampleCount() {
    synchronized (samples) {
      return samples.size();
    }
  }

  private Relay startRelay(JdbcOutboxStore store) {
    Transport transport = new Transport() {
      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message) {
        deliveries.delivered(Integer.parseInt(message.headers().get(INDEX_HEADER)), System.nanoTime());
        return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }
    };
    Relay started = Relay.builder(store, transport).onEvent(claimTimes).build();
    started.start();
    return started;
  }

  /** Closes the relay (gracefully: in-flight deliveries finish) and starts a new one over the same store. */
  private void restart(JdbcOutboxStore store) {
    Relay old = relay.get();
    if (old != null) {
      old.close();
    }
    relay.set(startRelay(store));
    restarts++;
  }

  private void beginHold(Connection holder) {
    try {
      holder.setAutoCommit(false);
      try (Statement statement = holder.createStatement()) {
        if (settings.hold() == HorizonOptions.HoldKind.REPEATABLE_READ) {
          holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
          try (ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + HorizonProbe.BYSTANDER)) {
            rows.next();
          }
        } else {
          holder.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
          statement.executeUpdate("UPDATE " + HorizonProbe.BYSTANDER + " SET balance = balance + 1 WHERE id = 1");
        }
      }
      held = true;
    } catch (SQLException e) {
      throw new IllegalStateException("could not begin the held transaction", e);
    }
  }

  private void endHold(Connection holder) {
    if (!held) {
      return;
    }
    try {
      holder.rollback();
      holder.setAutoCommit(true);
      held = false;
    } catch (SQLException e) {
      throw new IllegalStateException("could not end the held transaction", e);
    }
  }

  /** Ten times a second: the sum of 1,000 consecutive accounts' balances, by primary key range. */
  private void bystander(Connection connection) {
    String sql = "SELECT count(*), sum(balance) FROM " + HorizonProbe.BYSTANDER + " WHERE id BETWEEN ? AND ?";
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      long next = System.nanoTime();
      while (!Thread.currentThread().isInterrupted()) {
        int from = ThreadLocalRandom.current().nextInt(1, HorizonProbe.BYSTANDER_ROWS - 1_000);
        query.setInt(1, from);
        query.setInt(2, from + 999);
        long began = System.nanoTime();
        try (ResultSet rows = query.executeQuery()) {
          rows.next();
        }
        bystander.add(System.nanoTime() - began);
        next += BYSTANDER_EVERY.toNanos();
        LockSupport.parkNanos(Math.max(0, next - System.nanoTime()));
      }
    } catch (SQLException e) {
      if (!Thread.currentThread().isInterrupted()) {
        throw new IllegalStateException("the bystander query failed", e);
      }
    }
  }

  /** @param previous the last sample's time, committed count and delivered count; updated */
  private void sample(Connection monitor, long[] previous) {
    try {
      long now = System.nanoTime();
      long written = committed.get();
      long delivered = deliveries.distinct();
      double seconds = (now - previous[0]) / 1e9;
      ClaimTimes.Window claims = claimTimes.take();
      // The sample's nominal time (the scheduler's), so that runs line up; the rates use the time measured.
      double minutes = (sampleCount() + 1) * options.sampleEvery().toMillis() / 60_000.0;
      HorizonSample sample = new HorizonSample(minutes, held, (written - previous[1]) / seconds,
          (delivered - previous[2]) / seconds, claims.meanMillis(), claims.count(), Math.max(0, written - delivered),
          probe.horizon(monitor), probe.relations(monitor), deliveries.takeLatencies(), bystander.take());
      previous[0] = now;
      previous[1] = written;
      previous[2] = delivered;
      synchronized (samples) {
        samples.add(sample);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("sampling failed", e);
    }
  }

  /** Latencies of one interval, taken (and reset) by the sampler. Thread-safe. */
  static final class Latencies {
    private long[] values = new long[1024];
    private int size;

    synchronized void add(long nanos) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = nanos;
    }

    /** @return the values since the last take, sorted */
    synchronized long[] take() {
      long[] taken = Arrays.copyOf(values, size);
      size = 0;
      Arrays.sort(taken);
      return taken;
    }
  }

  /** What the transport saw: first deliveries with their latency, duplicates, per-key order. Thread-safe. */
  private final class Deliveries {
    private final BitSet seen;
    private final int[] lastOfKey = new int[Outbox4jTables.KEYS];
    private final Latencies latencies = new Latencies();
    private int distinct;
    private long duplicates;
    private long reordered;

    Deliveries(int total) {
      this.seen = new BitSet(total);
      Arrays.fill(lastOfKey, -1);
    }

    synchronized void delivered(int index, long now) {
      if (seen.get(index)) {
        duplicates++;
        return;
      }
      seen.set(index);
      distinct++;
      int key = index % Outbox4jTables.KEYS;
      int rank;
      synchronized (rankInKey) {
        rank = rankInKey[index];
      }
      if (rank < lastOfKey[key]) {
        reordered++;
      } else {
        lastOfKey[key] = rank;
      }
      long at = committedAt.get(index);
      // Delivered before the writer thread noted its commit's return: the commit had just happened.
      latencies.add(at == 0 ? 0 : Math.max(0, now - at));
    }

    synchronized int distinct() {
      return distinct;
    }

    synchronized long duplicates() {
      return duplicates;
    }

    synchronized long reordered() {
      return reordered;
    }

    long[] takeLatencies() {
      return latencies.take();
    }
  }

  /** The relay's claim times (claims that returned entries), per interval. Thread-safe. */
  static final class ClaimTimes implements RelayListener {
    record Window(long count, double meanMillis) {}

    private long count;
    private long nanos;

    @Override
    public synchronized void onBatch(BatchReport report) {
      count++;
      nanos += report.claimTime().toNanos();
    }

    synchronized Window take() {
      Window window = new Window(count, count == 0 ? Double.NaN : nanos / 1e6 / count);
      count = 0;
      nanos = 0;
      return window;
    }
  }
}
