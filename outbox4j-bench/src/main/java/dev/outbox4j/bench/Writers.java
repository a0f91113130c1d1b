package dev.outbox4j.bench;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import javax.sql.DataSource;

/**
 * Application threads writing business transactions: each thread holds one connection and commits one transaction
 * per message until the shared count is used up.
 */
final class Writers {
  /** The body of one business transaction, run on a connection with auto-commit off; the caller commits. */
  @FunctionalInterface
  interface Work {
    void write(Connection connection, int index) throws Exception;
  }

  /** Called after each commit, on the writer's thread. */
  @FunctionalInterface
  interface AfterCommit {
    void committed(int index);
  }

  /** One unit of work that manages its own transaction (for libraries that begin and commit themselves). */
  @FunctionalInterface
  interface Task {
    void run(int index) throws Exception;
  }

  private Writers() {}

  /** Runs {@code total} tasks on {@code threads} threads and returns when all finished. */
  static void runTasks(int threads, int total, Task task) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try {
          for (int index = next.getAndIncrement(); index < total && failure.get() == null;
              index = next.getAndIncrement()) {
            task.run(index);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "bench-writer-" + t);
      thread.start();
      running.add(thread);
    }
    join(running, failure);
  }

  /** Runs {@code total} transactions on {@code threads} threads and returns when all committed. */
  static void run(DataSource pool, int threads, int total, Work work) throws Exception {
    run(pool, threads, total, index -> {}, work, index -> {});
  }

  /**
   * @param pace called before each transaction with its index; may wait (the latency scenario paces the offered load)
   * @param afterCommit called after each commit
   */
  static void run(DataSource pool, int threads, int total, IntConsumer pace, Work work, AfterCommit afterCommit)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try (Connection connection = pool.getConnection()) {
          connection.setAutoCommit(false);
          for (int index = next.getAndIncrement(); index < total && failure.get() == null;
              index = next.getAndIncrement()) {
            pace.accept(index);
            try {
              work.write(connection, index);
              connection.commit();
            } catch (Exception e) {
              connection.rollback();
              throw e;
            }
            afterCommit.committed(index);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "bench-writer-" + t);
      thread.start();
      running.add(thread);
    }
    join(running, failure);
  }

  private static void join(List<Thread> running, AtomicReference<Throwable> failure) throws Exception {
    for (Thread thread : running) {
      thread.join();
    }
    Throwable error = failure.get();
    if (error instanceof Exception exception) {
      throw exception;
    } else if (error != null) {
      throw new IllegalStateException(error);
    }
  }
}
