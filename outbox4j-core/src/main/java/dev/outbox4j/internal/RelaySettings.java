package dev.outbox4j.internal;

import dev.outbox4j.CloudEventsMapping;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.Sleeper;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.random.RandomGenerator;

/**
 * A relay's configuration, copied and validated by {@link dev.outbox4j.RelayBuilder}. Not API.
 *
 * @param store where the entries are
 * @param transport where they go
 * @param maxAnswerTime the transport's {@link Transport#maxAnswerTime()}, read once at build time
 * @param batchSize entries claimed per pass
 * @param lease how long a claim holds
 * @param deliveryTimeout the longest wait for one answer
 * @param maxInFlight deliveries in flight at once
 * @param retryPolicy when failures of a message are retried and when it is given up
 * @param clock time for claims, schedules and log intervals
 * @param random jitter
 * @param sleeper the outage pause
 * @param outageBase the first outage pause
 * @param outageCap the longest outage pause
 * @param executor where {@link Transport#deliver} runs
 * @param threadFactory the background workers' threads
 * @param minPoll the shortest idle poll
 * @param maxPoll the longest idle poll
 * @param shutdownGrace how long close waits for deliveries in flight
 * @param purgeInterval how often delivered entries are purged
 * @param batchLinger the pause after a partial batch
 * @param workers background worker threads
 * @param listeners the event listeners
 * @param cloudEvents the CloudEvents mapping of each destination that has one
 */
public record RelaySettings(
    OutboxStore store,
    Transport transport,
    Duration maxAnswerTime,
    int batchSize,
    Duration lease,
    Duration deliveryTimeout,
    int maxInFlight,
    RetryPolicy retryPolicy,
    Clock clock,
    RandomGenerator random,
    Sleeper sleeper,
    Duration outageBase,
    Duration outageCap,
    Executor executor,
    ThreadFactory threadFactory,
    Duration minPoll,
    Duration maxPoll,
    Duration shutdownGrace,
    Duration purgeInterval,
    Duration batchLinger,
    int workers,
    List<RelayListener> listeners,
    Map<String, CloudEventsMapping> cloudEvents) {}
