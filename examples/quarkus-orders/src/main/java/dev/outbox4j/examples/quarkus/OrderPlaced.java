package dev.outbox4j.examples.quarkus;

import dev.outbox4j.quarkus.OutboxEvent;

/**
 * The event published when an order is placed. Fired as a CDI event inside the order's transaction, it is written to
 * the outbox as JSON, to the queue {@code orders.queue} names (RabbitMQ's default exchange), ordered per order.
 *
 * @param orderId the order's id
 * @param totalCents the order's total
 */
@OutboxEvent(destination = "/${orders.queue}", orderingKey = "orderId")
public record OrderPlaced(String orderId, long totalCents) {}
