package dev.outbox4j.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Counts deliveries seen by a no-op transport or handler, and lets the scenario wait for all of them. */
final class DeliveryCounter {
  private final AtomicLong delivered = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition reached = lock.newCondition();
  private volatile long target = Long.MAX_VALUE;

  void reset(long expected) {
    delivered.set(0);
    target = expected;
  }

  void increment() {
    if (delivered.incrementAndGet() >= target) {
      lock.lock();
      try {
        reached.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  void add(long count) {
    if (count > 0 && delivered.addAndGet(count) >= target) {
      lock.lock();
      try {
        reached.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  long count() {
    return delivered.get();
  }

  /** Waits until the expected count is reached; bounded, so a lost message fails the run instead of hanging it. */
  void await(Duration timeout) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (delivered.get() < target) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException("saw " + delivered.get() + " of " + target + " deliveries within " + timeout);
        }
        reached.await(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
      }
    } finally {
      lock.unlock();
    }
  }
}
