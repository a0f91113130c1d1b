/**
 * Micrometer binding: {@link dev.outbox4j.micrometer.OutboxMetrics} counts what a relay does, times its batches and
 * deliveries, and gauges the outbox (pending, in flight, quarantined, lag of the oldest pending entry).
 */
@NullMarked
package dev.outbox4j.micrometer;

import org.jspecify.annotations.NullMarked;
