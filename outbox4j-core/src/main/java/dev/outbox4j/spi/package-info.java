/**
 * What implementers touch: {@link dev.outbox4j.spi.OutboxStore} (the claim face the relay uses and the entry face
 * tools use, over the same entries) and {@link dev.outbox4j.spi.Transport} (how a message reaches a broker).
 *
 * <p>Every implementation proves itself by subclassing the contract suites in {@code outbox4j-testkit}.
 */
@NullMarked
package dev.outbox4j.spi;

import org.jspecify.annotations.NullMarked;
