package dev.outbox4j.bench;

import java.util.Arrays;
import java.util.List;

/**
 * One sample of a horizon or soak run: what happened in the interval that ends at {@code minutes}, and the state of
 * the database at that moment. Latencies are kept whole (sorted, in nanoseconds) so that percentiles over a window of
 * several samples are exact; they are not printed.
 *
 * @param minutes the end of the interval, from the start of the run
 * @param held whether the held transaction was open at the end of the interval
 * @param writtenPerSecond messages committed by the writers per second
 * @param deliveredPerSecond messages handed to the transport for the first time per second
 * @param claimMillis mean time of the relay's claims that returned entries, NaN if none did
 * @param claims the claims that returned entries
 * @param backlog messages committed and not yet delivered
 * @param horizon the clean-up horizon at the end of the interval
 * @param relations every outbox table and index
 * @param latencyNanos commit → delivery of the messages first delivered in the interval, sorted
 * @param bystanderNanos the bystander query's latencies in the interval, sorted
 */
record HorizonSample(
    double minutes,
    boolean held,
    double writtenPerSecond,
    double deliveredPerSecond,
    double claimMillis,
    long claims,
    long backlog,
    HorizonProbe.Horizon horizon,
    List<HorizonProbe.Relation> relations,
    long[] latencyNanos,
    long[] bystanderNanos) {

  HorizonSample {
    relations = List.copyOf(relations);
  }

  double p50Millis() {
    return percentileMillis(latencyNanos, 0.50);
  }

  double p99Millis() {
    return percentileMillis(latencyNanos, 0.99);
  }

  double bystanderP50Millis() {
    return percentileMillis(bystanderNanos, 0.50);
  }

  double bystanderP99Millis() {
    return percentileMillis(bystanderNanos, 0.99);
  }

  /** @return the dead tuples of the outbox tables (not indexes) together, or -1 where the database counts none */
  long deadTuples() {
    List<HorizonProbe.Relation> tables = relations.stream().filter(relation -> !relation.index()).toList();
    return tables.isEmpty() || tables.stream().anyMatch(table -> table.deadTuples() < 0) ? -1
        : tables.stream().mapToLong(HorizonProbe.Relation::deadTuples).sum();
  }

  /** @return the bytes of the outbox tables and indexes together */
  long bytes() {
    return relations.stream().mapToLong(HorizonProbe.Relation::bytes).sum();
  }

  /** @return the value at {@code fraction} of the sorted values, in milliseconds; NaN when there are none */
  static double percentileMillis(long[] sortedNanos, double fraction) {
    if (sortedNanos.length == 0) {
      return Double.NaN;
    }
    int at = (int) Math.ceil(fraction * sortedNanos.length) - 1;
    return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, at))] / 1e6;
  }

  /** @return the values of several samples in one sorted array */
  static long[] merged(List<long[]> parts) {
    long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
    Arrays.sort(all);
    return all;
  }
}
