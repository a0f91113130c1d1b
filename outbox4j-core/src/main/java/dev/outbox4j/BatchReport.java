package dev.outbox4j;

import java.time.Duration;

/**
 * Timings of one relay pass, for metrics.
 *
 * @param result what the pass did
 * @param claimTime time spent claiming
 * @param deliveryTime time from the first send to the last outcome
 * @param completionTime time spent recording outcomes in the store
 */
public record BatchReport(RelayResult result, Duration claimTime, Duration deliveryTime, Duration completionTime) {}
