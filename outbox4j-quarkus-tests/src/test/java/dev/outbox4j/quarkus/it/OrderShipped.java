package dev.outbox4j.quarkus.it;

import dev.outbox4j.quarkus.OutboxEvent;

/**
 * The test application's outbox event: its destination names this JVM's own queue through a property expression
 * ({@code test.events.queue}, set by {@link PostgresAndRabbitMq}), its ordering key is the order's id.
 *
 * @param orderId the order shipped
 * @param parcels how many parcels
 */
@OutboxEvent(destination = "/${test.events.queue}", orderingKey = "orderId")
public record OrderShipped(String orderId, int parcels) {}
