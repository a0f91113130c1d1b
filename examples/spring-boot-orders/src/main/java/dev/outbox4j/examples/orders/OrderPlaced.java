package dev.outbox4j.examples.orders;

/**
 * The event an order placement publishes; routed to the outbox by the {@code OutboxEventRoute} bean (an annotation,
 * {@code @OutboxEvent(destination = "orders/placed", orderingKey = "orderId")}, does the same for a fixed destination).
 *
 * @param orderId the order, also the ordering key
 * @param totalCents the order total
 */
public record OrderPlaced(String orderId, long totalCents) {}
