package dev.outbox4j.testkit;

import dev.outbox4j.spi.Claim;
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
    if (isRecording(method, args)) {
      awaitIfFrozen();
    }
    try {
      Object result = method.invoke(store, args);
      if (method.getName().equals("claim")) {
        synchronized (this) {
          @SuppressWarnings("unchecked")
          List<Claim> claims = (List<Claim>) result;
          claimed.addAll(claims);
        }
      }
      return result;
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
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
