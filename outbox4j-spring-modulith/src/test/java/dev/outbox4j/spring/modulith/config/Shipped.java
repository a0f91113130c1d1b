package dev.outbox4j.spring.modulith.config;

import org.springframework.modulith.events.Externalized;

/**
 * An externalized event in the auto-configuration test's package.
 *
 * @param parcel the parcel, the routing key
 */
@Externalized("shipments/shipped::#{parcel()}")
public record Shipped(String parcel) {}
