/**
 * Actuator support: the {@code outbox4j} health indicator and the {@code outbox4j} endpoint listing quarantined entries
 * with requeue and discard.
 */
@NullMarked
package dev.outbox4j.spring.actuate;

import org.jspecify.annotations.NullMarked;
