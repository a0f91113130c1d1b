/**
 * A running relay process ({@link dev.outbox4j.relay.runtime.RelayRuntime}): pool, store, routed transports, relay, wake-up listener, stats sampler.
 */
@NullMarked
package dev.outbox4j.relay.runtime;

import org.jspecify.annotations.NullMarked;
