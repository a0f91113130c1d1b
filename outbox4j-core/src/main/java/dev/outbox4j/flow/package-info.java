/**
 * The flow ledger: durable state for long-running asynchronous work (a request accepted now, answered later), safe
 * with many replicas (SPEC §7).
 *
 * <ul>
 *   <li>{@link dev.outbox4j.flow.FlowLedger}: insert-if-absent creation with a time to live, revision-checked
 *       updates, and renewable, owner-fenced execution leases.
 *   <li>{@link dev.outbox4j.flow.FlowState}: one flow's id, revision, schema version and application-defined body,
 *       serialized by a pluggable {@link dev.outbox4j.flow.FlowStateCodec} (JSON in {@code outbox4j-json}).
 *   <li>{@link dev.outbox4j.flow.LeaseObservation}: the lease exactly as persisted, so a waiter can tell a live
 *       holder (whose lease changes) from a dead one (whose lease never changes and is waited out).
 *   <li>{@link dev.outbox4j.flow.FlowStateUnreadableException}: a stored flow that exists but cannot be interpreted.
 *       It is never reported as absence, because callers forget absent flows.
 *   <li>{@link dev.outbox4j.flow.FlowStateFormat}: the codec plus the ledger's rules (size budget on write,
 *       consistency checks on read), shared by every backend.
 * </ul>
 */
@NullMarked
package dev.outbox4j.flow;

import org.jspecify.annotations.NullMarked;
