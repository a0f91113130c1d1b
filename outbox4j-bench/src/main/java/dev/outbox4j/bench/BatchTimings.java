package dev.outbox4j.bench;

import dev.outbox4j.BatchReport;
import dev.outbox4j.RelayListener;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Adds up the relay's own per-batch timings (claim, hand-off to the transport, completion), so a drain that falls
 * short of the ceiling shows where its time went. Printed beside the scenario's line; not part of the table.
 */
final class BatchTimings implements RelayListener {
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong entries = new AtomicLong();
  private final AtomicLong claimNanos = new AtomicLong();
  private final AtomicLong deliveryNanos = new AtomicLong();
  private final AtomicLong completionNanos = new AtomicLong();

  @Override
  public void onBatch(BatchReport report) {
    batches.incrementAndGet();
    entries.addAndGet(report.result().claimed());
    claimNanos.addAndGet(report.claimTime().toNanos());
    deliveryNanos.addAndGet(report.deliveryTime().toNanos());
    completionNanos.addAndGet(report.completionTime().toNanos());
  }

  void reset() {
    batches.set(0);
    entries.set(0);
    claimNanos.set(0);
    deliveryNanos.set(0);
    completionNanos.set(0);
  }

  String summary() {
    long count = Math.max(1, batches.get());
    return String.format(Locale.ROOT, "[%d batches, %.0f entries/batch; per batch: claim %.2f ms, hand-off %.2f ms,"
            + " completion %.2f ms]", batches.get(), (double) entries.get() / count, claimNanos.get() / 1e6 / count,
        deliveryNanos.get() / 1e6 / count, completionNanos.get() / 1e6 / count);
  }
}
