/**
 * The Spring-facing outbox4j API: {@link dev.outbox4j.spring.TransactionalOutbox} writes messages inside the current
 * Spring-managed transaction, {@link dev.outbox4j.spring.OutboxEvent} marks application events that go through the
 * outbox, {@link dev.outbox4j.spring.Outbox4jCustomizer} adjusts what properties cannot express, and
 * {@link dev.outbox4j.spring.RelayLifecycle} runs the relay with the application context. With several outboxes
 * ({@code outbox4j.outboxes.<name>}), each has its own {@code TransactionalOutbox}, injected with
 * {@code @Qualifier("<name>")}, that joins the transactions of its own {@code DataSource}. Wired by the auto-configuration
 * in {@code dev.outbox4j.spring.autoconfigure}; see {@code docs/spring-boot.md}.
 */
@NullMarked
package dev.outbox4j.spring;

import org.jspecify.annotations.NullMarked;
