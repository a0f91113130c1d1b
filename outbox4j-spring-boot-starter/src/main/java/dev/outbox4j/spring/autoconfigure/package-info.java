/**
 * Spring Boot auto-configuration for outbox4j (wiring only): {@link dev.outbox4j.spring.autoconfigure.Outbox4jProperties}
 * under {@code outbox4j.*}, the JDBC components, transports, Actuator, Micrometer, OpenTelemetry and Jackson. Not API:
 * applications configure through properties, {@link dev.outbox4j.spring.Outbox4jCustomizer} beans, or beans of their
 * own, which replace the starter's.
 */
@NullMarked
package dev.outbox4j.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
