package dev.outbox4j.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Runs N tasks on N real threads released together by a latch, so they contend as closely as the machine allows, and
 * collects their results with a bounded wait.
 */
final class Race {
  private Race() {}

  static <R> List<R> run(int threads, Duration timeout, IntFunction<Callable<R>> task) {
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<R>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Callable<R> body = task.apply(i);
        futures.add(executor.submit(() -> {
          ready.countDown();
          if (!go.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new TimeoutException("the race never started");
          }
          return body.call();
        }));
      }
      if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("the racing threads did not start within " + timeout);
      }
      go.countDown();
      List<R> results = new ArrayList<>();
      for (Future<R> future : futures) {
        results.add(future.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted during a race", e);
    } catch (ExecutionException e) {
      throw new AssertionError("a racing thread failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("a racing thread did not finish within " + timeout, e);
    } finally {
      executor.shutdownNow();
    }
  }
}
