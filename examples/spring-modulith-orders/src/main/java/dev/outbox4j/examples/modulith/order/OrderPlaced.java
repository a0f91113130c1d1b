package dev.outbox4j.examples.modulith.order;

import org.springframework.modulith.events.Externalized;

/**
 * Published when an order is placed. Externalized to RabbitMQ exchange {@code modulith-orders}, routing key
 * {@code placed} (outbox4j's destination {@code exchange/routingKey}); the part after {@code ::} is the ordering key:
 * one order's events arrive in the order their transactions committed.
 *
 * @param orderId the order
 * @param totalCents the order total
 */
@Externalized("modulith-orders/placed::#{orderId()}")
public record OrderPlaced(String orderId, long totalCents) {}
