/**
 * The YAML configuration with environment overrides ({@link dev.outbox4j.relay.config.ConfigReader}), the validated {@link dev.outbox4j.relay.config.RelayConfig}, and {@link dev.outbox4j.relay.config.RelayAssembly}, the one place that maps it onto the library.
 */
@NullMarked
package dev.outbox4j.relay.config;

import org.jspecify.annotations.NullMarked;
