/**
 * The one-command demo: embedded H2, a producer writing order events in real transactions, a webhook sink that verifies signatures, and a destination that refuses some messages.
 */
@NullMarked
package dev.outbox4j.relay.demo;

import org.jspecify.annotations.NullMarked;
