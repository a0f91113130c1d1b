package dev.outbox4j.rabbitmq;

import java.util.Objects;

/**
 * Where a message is published in RabbitMQ: an exchange and a routing key.
 *
 * <p>The default mapping from a destination is {@link #parse(String)}: {@code exchange/routingKey}, split at the first
 * {@code '/'} (exchange names cannot contain one; routing keys may). {@code orders/created} publishes to exchange
 * {@code orders} with routing key {@code created}; {@code /jobs} publishes to the default exchange, which routes to the
 * queue named {@code jobs}; {@code orders} (no slash) publishes to exchange {@code orders} with an empty routing key
 * (right for fanout exchanges).
 *
 * @param exchange the exchange name; empty for the default exchange
 * @param routingKey the routing key; may be empty
 */
public record AmqpAddress(String exchange, String routingKey) {
  /** @throws NullPointerException if either part is {@code null} */
  public AmqpAddress {
    Objects.requireNonNull(exchange, "exchange");
    Objects.requireNonNull(routingKey, "routingKey");
  }

  /**
   * @param destination a message destination, {@code exchange/routingKey}
   * @return the address it names
   */
  public static AmqpAddress parse(String destination) {
    int slash = destination.indexOf('/');
    return slash < 0
        ? new AmqpAddress(destination, "")
        : new AmqpAddress(destination.substring(0, slash), destination.substring(slash + 1));
  }

  @Override
  public String toString() {
    return (exchange.isEmpty() ? "(default exchange)" : exchange) + "/" + routingKey;
  }
}
