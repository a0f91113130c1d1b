/**
 * Spring Boot auto-configuration for outbox4j (wiring only): {@link dev.outbox4j.spring.autoconfigure.Outbox4jProperties}
 * under {@code outbox4j.*}, the JDBC components, transports, Actuator, Micrometer, OpenTelemetry and Jackson. Not API:
 * applications configure through properties, {@link dev.outbox4j.spring.Outbox4jCustomizer} beans, or beans of their
 * own, which replace the starter's.
 *
 * <p>Two forms: the single outbox on the application's {@code DataSource} ({@code outbox4j.tables.*},
 * {@code outbox4j.relay.*}, ...), or several named outboxes, each on the {@code DataSource} bean it names
 * ({@code outbox4j.outboxes.<name>.*}, the same keys per name: {@link dev.outbox4j.spring.autoconfigure.OutboxSettings}),
 * whose beans carry the qualifier {@code <name>}. The forms do not mix: the single form's keys beside named outboxes
 * fail start-up, naming them.
 */
@NullMarked
package dev.outbox4j.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
