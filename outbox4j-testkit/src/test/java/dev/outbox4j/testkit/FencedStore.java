package dev.outbox4j.testkit;

import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.OutboxStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One relay's view of the shared store in {@link RelayProtocolPropertyTest}: every call goes through to the store, and
 * the property can freeze the relay at its first recording call of a pass (it has sent everything and recorded nothing),
 * let it go on, or kill it (its process is gone: nothing it does reaches the store any more). It also keeps the claims
 * the relay's pass received, so that the property can see what it did with each.
 *
 * <p>Only the calls that record an outcome after the sends freeze: {@code markDelivered}, {@code markFailed}, one
 * entry's {@code postpone}, {@code quarantine} and {@code release}. The postponement of a whole list is how a relay holds
 * back a paused destination's claims before it sends anything, so it does not freeze: a relay frozen there would send
 * after the clock jumped past its leases, which a real relay's send cutoff (on its own monotonic time) prevents.
 *
 * <p>In a drain, the relay may claim the next batch on a thread of its own while it sends and records the current one
 * (its claim ahead). This view places that claim at a point the property drew ({@link #startDrain}): just before the
 * relay's {@code k}-th store change after the claim ahead started, or, if the relay makes fewer, when it waits for the
 * claim ahead. The claim ahead's thread comes from this view's {@link #newThread thread factory}, which the relay calls
 * on its own thread when the first claim ahead of a drain starts; a drain of two passes starts at most one. So a seed
 * replays a drain's interleaving exactly, and the property searches them.
 *
 * <p>Thread-safe: the relay's pass runs on a thread of its own while the property's thread freezes, releases or kills it.
 */
final class FencedStore {
  /** Thrown into a killed relay's thread: an {@link Error}, so the relay neither catches nor logs it on its way out. */
  static final class Killed extends Error {
    private static final long serialVersionUID = 1L;

    Killed() {
      super("this relay was killed", null, false, false);
    }
  }

  private static final Set<String> RECORDING = Set.of("markDelivered", "markFailed", "postpone", "quarantine",
      "release");
  /** The calls that change the store: the points a claim ahead is placed among. */
  private static final Set<String> CHANGES = Set.of("claim", "markDeliveredAndClaim", "markDelivered", "markFailed",
      "postpone", "quarantine", "release");
  private static final Duration MOST_A_DRAIN_WAITS = Duration.ofMinutes(1);

  private final OutboxStore store;
  private final OutboxStore view;
  private final List<Claim> claimed = new ArrayList<>();
  private volatile boolean killed;
  /** The thread whose next recording call freezes, or {@code null}. */
  private @Nullable Thread freezing;
  /** Counted down when the relay freezes or its pass ends, whichever comes first. */
  private CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean holding;
  private CountDownLatch released = new CountDownLatch(1);
  /** Claims handed back unsent ({@code release}): the relay needs no reason to send them. */
  private final List<Claim> handedBack = new ArrayList<>();

  // The drain under way (guarded by this): its thread, where its claim ahead runs, and how far it got.
  private @Nullable Thread drainer;
  private @Nullable Thread ahead;
  private int aheadAt;
  private int changesSinceAhead;
  private boolean aheadMayRun;
  private boolean aheadRan;
  private String aheadRanWhere = "";
  private boolean combines = true;

  FencedStore(OutboxStore store) {
    this.store = store;
    this.view = (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(),
        new Class<?>[] {OutboxStore.class}, (proxy, method, args) -> call(method, args));
  }

  /** @return the store as the relay sees it */
  OutboxStore view() {
    return view;
  }

  private Object call(Method method, Object[] args) throws Throwable {
    if (killed) {
      throw new Killed();
    }
    String name = method.getName();
    if (name.equals("combinesDeliveredAndClaim")) {
      synchronized (this) {
        return combines;
      }
    }
    if (isRecording(method, args)) {
      awaitIfFrozen();
    }
    boolean claimAhead = false;
    if (CHANGES.contains(name)) {
      claimAhead = awaitTurn(name);
    }
    try {
      Object result = method.invoke(store, args);
      synchronized (this) {
        switch (name) {
          case "claim" -> claimed.addAll(claims(result));
          case "markDeliveredAndClaim" -> claimed.addAll(((DeliveredAndClaimed) result).claims());
          case "release" -> handedBack.addAll(claims(args[0]));
          default -> { }
        }
      }
      return result;
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } finally {
      if (claimAhead) {
        synchronized (this) {
          aheadRan = true;
          notifyAll();
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static Collection<Claim> claims(Object list) {
    return (Collection<Claim>) list;
  }

  /**
   * Places a drain's claim ahead among its other store changes: the claim ahead waits for its turn, and the relay's
   * change at that turn waits until the claim ahead has returned.
   *
   * @return whether this call is the claim ahead
   */
  private boolean awaitTurn(String name) throws InterruptedException {
    Thread current = Thread.currentThread();
    long deadline = System.nanoTime() + MOST_A_DRAIN_WAITS.toNanos();
    synchronized (this) {
      if (current == ahead) {
        if (aheadRan) {
          throw new IllegalStateException("a second claim ahead in one drain: the world places only one");
        }
        while (!aheadMayRun) {
          if (drainerWaitsForTheClaimAhead()) {
            aheadRanWhere = "when the relay waits for it, after " + changesSinceAhead + " change(s) of its own";
            break;
          }
          waitUntil(deadline, 1);
        }
        return true;
      }
      if (current != drainer || ahead == null || aheadRan) {
        return false;
      }
      if (changesSinceAhead++ < aheadAt) {
        return false;
      }
      aheadMayRun = true;
      aheadRanWhere = "before the relay's " + name + ", its change " + changesSinceAhead + " after the claim ahead started";
      notifyAll();
      while (!aheadRan) {
        waitUntil(deadline, 0);
      }
      return false;
    }
  }

  private void waitUntil(long deadline, long millis) throws InterruptedException {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new IllegalStateException("a drain's claim ahead and its relay waited for each other for "
          + MOST_A_DRAIN_WAITS);
    }
    wait(millis == 0 ? Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)) : millis);
  }

  /** @return whether the draining relay is parked waiting for its claim ahead to return (nothing else parks it) */
  private boolean drainerWaitsForTheClaimAhead() {
    Thread waiting = drainer;
    if (waiting == null || waiting.getState() != Thread.State.WAITING) {
      return false;
    }
    for (StackTraceElement frame : waiting.getStackTrace()) {
      if (frame.getClassName().endsWith(".ClaimAhead") && frame.getMethodName().equals("settle")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The relay's thread factory: the relay asks it for its claim ahead's thread, on its own thread, when the first claim
   * ahead of a drain starts.
   */
  synchronized Thread newThread(Runnable work) {
    if (drainer == null) {
      throw new IllegalStateException("the relay asked for a thread outside a drain");
    }
    Thread thread = new Thread(work, "claims ahead");
    thread.setDaemon(true);
    ahead = thread;
    changesSinceAhead = 0;
    return thread;
  }

  /**
   * The calling thread drains next: its claim ahead, if one starts, runs just before its {@code aheadAt}-th store
   * change after that ({@code 0}: before the first), or when it waits for the claim ahead.
   *
   * @param combines what the store says when the relay asks whether it combines a completion with the next claim
   */
  synchronized void startDrain(int aheadAt, boolean combines) {
    this.drainer = Thread.currentThread();
    this.aheadAt = aheadAt;
    this.combines = combines;
    ahead = null;
    aheadMayRun = false;
    aheadRan = false;
    aheadRanWhere = "";
  }

  /** @return where the drain's claim ahead ran, or an empty string when none started */
  synchronized String endDrain() {
    String where = ahead == null ? "" : aheadRan ? aheadRanWhere : "started, never claimed";
    drainer = null;
    ahead = null;
    combines = true;
    return where;
  }

  private static boolean isRecording(Method method, Object[] args) {
    if (!RECORDING.contains(method.getName())) {
      return false;
    }
    return !method.getName().equals("postpone") || !(args[0] instanceof Collection<?>);
  }

  private void awaitIfFrozen() throws InterruptedException {
    CountDownLatch wait;
    synchronized (this) {
      if (freezing != Thread.currentThread()) {
        return;
      }
      freezing = null;
      holding = true;
      stopped.countDown();
      wait = released;
    }
    if (!wait.await(10, TimeUnit.MINUTES)) {
      throw new IllegalStateException("a frozen relay was never released");
    }
    if (killed) {
      throw new Killed();
    }
  }

  /** The next recording call on the pass's thread blocks until {@link #release()}. */
  synchronized void freezeAtNextRecording(Thread pass) {
    freezing = pass;
    stopped = new CountDownLatch(1);
    released = new CountDownLatch(1);
  }

  /** Called by the thread that runs the relay's pass when the pass ended (also after a freeze was released). */
  void passEnded() {
    stopped.countDown();
  }

  /**
   * Waits until the relay froze or its pass ended.
   *
   * @return whether it is frozen now (blocked at its freeze point)
   * @throws IllegalStateException if neither happened within the time
   */
  boolean awaitFrozenOrEnded(Duration timeout) throws InterruptedException {
    CountDownLatch latch;
    synchronized (this) {
      latch = stopped;
    }
    if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new IllegalStateException("a relay's pass neither froze nor ended within " + timeout);
    }
    return holding;
  }

  /** Lets a frozen relay go on (or, once killed, end). A relay that has not reached its freeze point will not freeze. */
  synchronized void release() {
    freezing = null;
    holding = false;
    released.countDown();
  }

  /** From now on, every call of the relay fails with {@link Killed}. */
  void kill() {
    killed = true;
    release();
  }

  /** @return the claims the relay handed back unsent since the last call; forgets them */
  synchronized List<Claim> takeHandedBack() {
    List<Claim> taken = List.copyOf(handedBack);
    handedBack.clear();
    return taken;
  }

  /** @return the claims the relay received since the last {@link #takeClaims()}, in order */
  synchronized List<Claim> claimsSoFar() {
    return List.copyOf(claimed);
  }

  /** @return the claims the relay received since the last call, in order; forgets them */
  synchronized List<Claim> takeClaims() {
    List<Claim> taken = List.copyOf(claimed);
    claimed.clear();
    return taken;
  }
}
