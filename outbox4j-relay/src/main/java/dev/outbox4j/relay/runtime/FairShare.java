package dev.outbox4j.relay.runtime;

import dev.outbox4j.BatchReport;
import dev.outbox4j.Message;
import dev.outbox4j.RelayListener;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.CloudEvent;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Shares a relay process's CPU between its outboxes, so that a busy outbox never starves a quiet one.
 *
 * <h2>Why it exists</h2>
 * Each outbox has its own relay, pool and transport client, so no outbox waits in another's queue. They still share
 * the process's cores, and on a small machine the database's and the destinations' too: an outbox draining a backlog
 * at full speed keeps every core busy with its sends, and a quiet outbox's few rows then wait for a core at each step
 * of their pass (the claim, the send, the record). The operating system shares the cores by threads, not by outboxes,
 * and the busy outbox has more of everything. So the relay shares them by outboxes, at the two points where delaying is
 * free of risk: the dispatch of a send, and handing out a connection (before a claim, a completion or a stats query).
 *
 * <h2>How it decides</h2>
 * <ul>
 *   <li><b>A share.</b> Each outbox's dispatched sends (a send, or an atomic batch) are counted, the count halving
 *       every {@code halfLife}: its recent share of the work. An outbox is <em>lighter</em> than another when its
 *       share is under half the other's, so two outboxes equally busy never hold each other back.
 *   <li><b>A turn.</b> An outbox that dispatches a send, or that is woken by a notification that can only be its own,
 *       has a turn for {@code turn} from then; its pass's end (its batch recorded) ends the turn at once.
 *   <li><b>The lighter goes first.</b> An outbox about to dispatch a send or to take a connection waits while a
 *       lighter outbox has a turn. A send also waits while it would be more than {@code contendedInFlight} in flight
 *       and a lighter outbox was active within the last {@code window} (its sends then no longer queue up in front of
 *       the lighter one's in the CPU, the database and the destinations).
 *   <li><b>Never for long, never alone.</b> One wait lasts at most {@code maxHold}. An outbox with no lighter outbox
 *       active never waits: a busy outbox alone keeps its full speed. An outbox kept waiting sends less, so its share
 *       falls until it is the lighter one, and the roles swap: nobody starves.
 * </ul>
 *
 * <h2>Why it keeps every guarantee</h2>
 * It is the relay's dispatch executor ({@link dev.outbox4j.RelayBuilder#withExecutor}) and only delays when a task
 * starts, as a busy executor would. The relay checks a send's cutoff where the task runs and stamps the send's start
 * there, so a send held too long is handed back unsent and its lease, order and fencing are what they were. A
 * connection held back only starts its statement later, as a busy pool would: a claim's lease counts from the claim,
 * and a completion is fenced as ever. What is claimed, sent and recorded does not change, only when.
 *
 * <p>Time comes from the injected ticker ({@link System#nanoTime()} in production); the waits themselves are real,
 * bounded by {@code maxHold}, and cut short when another outbox's pass ends or a send is answered.
 *
 * <p>Thread-safe.
 */
final class FairShare {
  /** How long a dispatch or an outbox's own wake-up gives it a turn. */
  static final Duration TURN = Duration.ofMillis(50);
  /** The longest one dispatch waits. */
  static final Duration MAX_HOLD = Duration.ofMillis(100);
  /** How long a lighter outbox counts as active after its last turn began, for the bound on sends in flight. */
  static final Duration WINDOW = Duration.ofSeconds(1);
  /** How fast a share forgets: it halves in this time. */
  static final Duration HALF_LIFE = Duration.ofSeconds(1);
  /** Sends in flight an outbox may have while a lighter one is active. */
  static final int CONTENDED_IN_FLIGHT = 4;
  /** Another outbox is lighter when its share is under this fraction of one's own. */
  private static final double LIGHTER = 0.5;
  /** The longest single wait on the monitor: a wait's end is judged by the ticker, not by the monitor. */
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final LongSupplier ticker;
  private final long turn;
  private final long maxHold;
  private final long window;
  private final long halfLife;
  private final int contendedInFlight;
  private final List<Lane> lanes = new CopyOnWriteArrayList<>();

  /** @param ticker the time in nanoseconds, as {@link System#nanoTime()} */
  FairShare(LongSupplier ticker) {
    this(ticker, TURN, MAX_HOLD, WINDOW, HALF_LIFE, CONTENDED_IN_FLIGHT);
  }

  FairShare(LongSupplier ticker, Duration turn, Duration maxHold, Duration window, Duration halfLife,
      int contendedInFlight) {
    this.ticker = ticker;
    this.turn = turn.toNanos();
    this.maxHold = maxHold.toNanos();
    this.window = window.toNanos();
    this.halfLife = halfLife.toNanos();
    this.contendedInFlight = contendedInFlight;
  }

  /**
   * @param name the outbox's name, for {@link Lane#toString()}
   * @return the outbox's place in the sharing; close it when the outbox stops
   */
  Lane join(String name) {
    Lane lane = new Lane(name);
    lanes.add(lane);
    return lane;
  }

  /**
   * @param outbox an outbox's name
   * @return how many of its dispatches and connections wait now for a lighter outbox
   */
  synchronized int waiting(String outbox) {
    return lanes.stream().filter(lane -> lane.name.equals(outbox)).mapToInt(lane -> lane.waiting).sum();
  }

  /** One outbox's place: its share, its turn, its sends in flight. Its state is guarded by the {@link FairShare}. */
  final class Lane implements AutoCloseable {
    private final String name;
    private double share;
    private long shareAt;
    private boolean turnOpen;
    private long turnUntil;
    private boolean everActive;
    private long activeAt;
    private int inFlight;
    private int waiting;

    private Lane(String name) {
      this.name = name;
      this.shareAt = ticker.getAsLong();
    }

    /** A notification that can only be this outbox's woke it: its pass claims now, and goes first. */
    void woken() {
      synchronized (FairShare.this) {
        startTurn(ticker.getAsLong());
      }
    }

    /** Its pass ended (its batch recorded): its turn ends, and outboxes waiting for it go on. */
    void passEnded() {
      synchronized (FairShare.this) {
        turnOpen = false;
        FairShare.this.notifyAll();
      }
    }

    /**
     * The decision, at {@code now}: whether a dispatch of this outbox (or its asking for a connection) that began
     * waiting at {@code since} waits on.
     *
     * @param now the ticker now
     * @param since when the wait began, on the ticker
     * @param sending whether a send waits (the bound on sends in flight applies), or a connection
     * @return {@code true} while a lighter outbox has a turn, or, for a send, while a lighter outbox was active within
     *     the window and this outbox has its bound of sends in flight; never past {@code maxHold}
     */
    boolean mustWait(long now, long since, boolean sending) {
      synchronized (FairShare.this) {
        if (now - since >= maxHold) {
          return false;
        }
        double own = share(now);
        for (Lane other : lanes) {
          if (other == this || !(other.share(now) < own * LIGHTER)) {
            continue;
          }
          if (other.hasTurn(now)) {
            return true;
          }
          if (sending && inFlight >= contendedInFlight && other.everActive && now - other.activeAt < window) {
            return true;
          }
        }
        return false;
      }
    }

    /** @return the executor its relay dispatches sends on: each runs on the caller once it need not wait */
    Executor executor() {
      return this::dispatch;
    }

    /** @return a listener that ends its turn when a pass ends */
    RelayListener listener() {
      return new RelayListener() {
        @Override
        public void onBatch(BatchReport report) {
          passEnded();
        }
      };
    }

    /** @return the transport, counting this outbox's sends in flight */
    Transport counting(Transport transport) {
      return new Counting(transport);
    }

    /**
     * @param dataSource the outbox's pool
     * @return the pool, handing out a connection once this outbox need not wait: a busy outbox's claims and
     *     completions then do not start while a lighter outbox's pass runs
     */
    DataSource gated(DataSource dataSource) {
      return new Gated(dataSource);
    }

    private void dispatch(Runnable task) {
      synchronized (FairShare.this) {
        long now = awaitTurn(true);
        share = share(now) + 1;
        shareAt = now;
        startTurn(now);
      }
      task.run(); // even after an interrupt: the task checks its own cutoff
    }

    /** @return the ticker once this outbox need not wait (or was interrupted, the flag set again) */
    private long awaitTurn(boolean sending) {
      synchronized (FairShare.this) {
        long since = ticker.getAsLong();
        long now = since;
        waiting++;
        try {
          while (mustWait(now, since, sending)) {
            TimeUnit.NANOSECONDS.timedWait(FairShare.this, Math.max(1, Math.min(POLL_NANOS, since + maxHold - now)));
            now = ticker.getAsLong();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          waiting--;
        }
        return now;
      }
    }

    private void startTurn(long now) {
      turnOpen = true;
      turnUntil = now + turn;
      everActive = true;
      activeAt = now;
    }

    private boolean hasTurn(long now) {
      return turnOpen && now - turnUntil < 0;
    }

    /** @return the share at {@code now}, decayed since it was last counted */
    private double share(long now) {
      return share * Math.pow(0.5, (double) Math.max(0, now - shareAt) / halfLife);
    }

    private void sent() {
      synchronized (FairShare.this) {
        inFlight++;
      }
    }

    private void answered() {
      synchronized (FairShare.this) {
        inFlight--;
        FairShare.this.notifyAll();
      }
    }

    /** Leaves the sharing: nobody waits for this outbox any more. */
    @Override
    public void close() {
      lanes.remove(this);
      synchronized (FairShare.this) {
        FairShare.this.notifyAll();
      }
    }

    @Override
    public String toString() {
      return "FairShare.Lane[" + name + "]";
    }

    /** Hands out connections once this outbox need not wait; otherwise the pool itself. */
    private final class Gated implements DataSource {
      private final DataSource dataSource;

      Gated(DataSource dataSource) {
        this.dataSource = dataSource;
      }

      @Override
      public Connection getConnection() throws SQLException {
        awaitTurn(false);
        return dataSource.getConnection();
      }

      @Override
      public Connection getConnection(String username, String password) throws SQLException {
        awaitTurn(false);
        return dataSource.getConnection(username, password);
      }

      @Override
      public PrintWriter getLogWriter() throws SQLException {
        return dataSource.getLogWriter();
      }

      @Override
      public void setLogWriter(PrintWriter out) throws SQLException {
        dataSource.setLogWriter(out);
      }

      @Override
      public void setLoginTimeout(int seconds) throws SQLException {
        dataSource.setLoginTimeout(seconds);
      }

      @Override
      public int getLoginTimeout() throws SQLException {
        return dataSource.getLoginTimeout();
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return dataSource.getParentLogger();
      }

      @Override
      public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : dataSource.unwrap(type);
      }

      @Override
      public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || dataSource.isWrapperFor(type);
      }
    }

    /** Counts the sends in flight (not an atomic batch's); otherwise the transport itself. */
    private final class Counting implements Transport {
      private final Transport transport;

      Counting(Transport transport) {
        this.transport = transport;
      }

      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message) {
        return counted(() -> transport.deliver(message));
      }

      @Override
      public CompletionStage<DeliveryOutcome> deliver(Message message, CloudEvent event) {
        return counted(() -> transport.deliver(message, event));
      }

      /** @return the transport's own stage (a cancel still reaches it), counted in flight until it completes */
      private CompletionStage<DeliveryOutcome> counted(Supplier<CompletionStage<DeliveryOutcome>> send) {
        sent();
        CompletionStage<DeliveryOutcome> sending;
        try {
          sending = send.get();
        } catch (RuntimeException e) {
          answered();
          throw e;
        }
        sending.whenComplete((outcome, error) -> answered());
        return sending;
      }

      @Override
      public @Nullable AtomicBatches atomicBatches(String destination) {
        return transport.atomicBatches(destination);
      }

      @Override
      public Duration maxAnswerTime() {
        return transport.maxAnswerTime();
      }

      @Override
      public void close() {
        transport.close();
      }
    }
  }
}
