/**
 * In-memory reference implementations: {@link dev.outbox4j.memory.InMemoryOutboxStore} implements the whole store
 * contract in one process, {@link dev.outbox4j.memory.InMemoryOutbox} writes into it inside an
 * {@link dev.outbox4j.memory.InMemoryTransaction}, and {@link dev.outbox4j.memory.InProcessTransport} delivers to a
 * callback; {@link dev.outbox4j.memory.InMemoryInbox} and {@link dev.outbox4j.memory.InMemoryFlowLedger} are the
 * reference inbox and flow ledger. For tests, demos and single-process applications that need no durability.
 */
@NullMarked
package dev.outbox4j.memory;

import org.jspecify.annotations.NullMarked;
