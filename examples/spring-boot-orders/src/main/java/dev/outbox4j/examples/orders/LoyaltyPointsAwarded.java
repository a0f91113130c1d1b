package dev.outbox4j.examples.orders;

/**
 * Loyalty points awarded for an order; routed to {@code <exchange>/loyalty} by the {@code OutboxEventRoute} bean in
 * {@link OrdersApplication}. No queue is bound to the routing key {@code loyalty} until the loyalty service exists
 * ({@code orders.loyalty-bound=true}), so RabbitMQ returns the message as unroutable and the relay quarantines it as a
 * permanent failure: a quarantined entry to try the Actuator endpoint's requeue and discard on.
 *
 * @param orderId the order, also the ordering key
 * @param points the points awarded
 */
public record LoyaltyPointsAwarded(String orderId, long points) {}
