/**
 * The runnable relay: {@link dev.outbox4j.relay.Main} is the executable jar's entry point. See docs/relay-app.md.
 */
@NullMarked
package dev.outbox4j.relay;

import org.jspecify.annotations.NullMarked;
