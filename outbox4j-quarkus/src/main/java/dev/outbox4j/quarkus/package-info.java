/**
 * outbox4j for Quarkus, the API an application touches: {@link dev.outbox4j.quarkus.TransactionalOutbox} writes
 * messages in the caller's JTA transaction through the Agroal datasource's enlisted connection, refusing outside a
 * transaction with {@link dev.outbox4j.quarkus.OutboxTransactionRequiredException} unless
 * {@link dev.outbox4j.quarkus.WithoutTransaction#OWN_TRANSACTION} is configured. CDI events of types marked
 * {@link dev.outbox4j.quarkus.OutboxEvent} are written the same way when fired, serialized by an
 * {@link dev.outbox4j.quarkus.OutboxEventSerializer} (JSON by default).
 *
 * <p>The extension ({@code outbox4j-quarkus} with its build-time half {@code outbox4j-quarkus-deployment}) also runs the
 * relay with the application; see {@link dev.outbox4j.quarkus.runtime}.
 */
@NullMarked
package dev.outbox4j.quarkus;

import org.jspecify.annotations.NullMarked;
