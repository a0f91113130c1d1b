package dev.outbox4j.spring.modulith.app;

import org.springframework.modulith.events.Externalized;

/**
 * Externalized: to exchange {@code smt.orders}, routing key {@code placed}, keyed by the order.
 *
 * @param orderId the order, the ordering key
 * @param sequence the order's n-th event, to check per-key order
 */
@Externalized("smt.orders/placed::#{orderId()}")
public record OrderPlaced(String orderId, int sequence) {}
