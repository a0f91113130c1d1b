package dev.outbox4j.spring.app;

import dev.outbox4j.spring.OutboxEvent;

/**
 * A domain event marked for the outbox.
 *
 * @param orderId the order, also the ordering key
 * @param items how many items
 */
@OutboxEvent(destination = "orders/placed", orderingKey = "orderId")
public record OrderPlaced(String orderId, int items) {}
