package dev.outbox4j.http;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * At most a fixed number of requests to one endpoint at a time; the others wait in arrival order.
 *
 * <h2>Why</h2>
 * The JDK client opens a connection for every request sent while the open ones are busy, and the relay hands the
 * transport a whole batch at once (up to its in-flight bound, 256 by default). A receiver with a small listen backlog
 * (Python's {@code ThreadingHTTPServer} accepts 5 waiting connections) drops the connection attempts beyond it; they
 * are retried by the kernel a second later and then fail their connect timeout, which the relay takes as an outage
 * and pauses the destination. Reusing a few connections, as every hand-written client does, is faster for the
 * receiver as well.
 *
 * <p>A waiting request keeps its delivery's bound: its outcome completes at the bound whether it was sent or not, and
 * one whose outcome is complete by the time its turn comes is never sent. Per-key order is the relay's (one entry of a
 * key at a time), which waiting here does not change.
 *
 * <p>Thread-safe.
 */
final class RequestGate {
  private final int limit;
  private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
  private int running;

  /** A request waiting for its turn: how to start it, and its outcome (complete: not to be started). */
  private record Waiting(Runnable start, CompletableFuture<?> outcome) {}

  /** @param limit requests running at once; positive */
  RequestGate(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("maxConcurrentRequests must be positive, was " + limit);
    }
    this.limit = limit;
  }

  /**
   * Starts the request now, or when a running one {@linkplain #release() ends}, unless its outcome is complete by then.
   *
   * @param outcome the request's outcome
   * @param start sends the request; must lead to exactly one {@link #release()} once it ends
   */
  void submit(CompletableFuture<?> outcome, Runnable start) {
    synchronized (this) {
      if (running >= limit) {
        waiting.add(new Waiting(start, outcome));
        return;
      }
      running++;
    }
    start.run();
  }

  /** Ends a running request: starts the next waiting one whose outcome is still open, if any. */
  void release() {
    Runnable next = null;
    synchronized (this) {
      while (!waiting.isEmpty()) {
        Waiting candidate = waiting.poll();
        if (!candidate.outcome().isDone()) {
          next = candidate.start();
          break;
        }
      }
      if (next == null) {
        running--;
      }
    }
    if (next != null) {
      next.run();
    }
  }

  /** @return requests running now (for tests) */
  synchronized int running() {
    return running;
  }

  /** @return requests waiting now, including ones whose outcome completed while they waited (for tests) */
  synchronized int waiting() {
    return waiting.size();
  }
}
