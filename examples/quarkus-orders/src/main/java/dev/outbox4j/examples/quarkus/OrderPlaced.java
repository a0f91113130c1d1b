package dev.outbox4j.examples.quarkus;

/**
 * The event published when an order is placed.
 *
 * @param orderId the order's id
 * @param totalCents the order's total
 */
public record OrderPlaced(String orderId, long totalCents) {}
