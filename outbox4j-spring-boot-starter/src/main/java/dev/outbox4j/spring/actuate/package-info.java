/**
 * Actuator support: the {@code outbox4j} health indicator and the {@code outbox4j} endpoint listing quarantined entries
 * with requeue and discard; with several outboxes, one health component per outbox and
 * {@link dev.outbox4j.spring.actuate.OutboxesEndpoint}, the same operations under each outbox's name.
 */
@NullMarked
package dev.outbox4j.spring.actuate;

import org.jspecify.annotations.NullMarked;
