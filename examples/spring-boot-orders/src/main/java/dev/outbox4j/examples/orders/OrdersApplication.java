package dev.outbox4j.examples.orders;

import dev.outbox4j.spring.OutboxEventRoute;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * Orders in one process: {@link OrderService} saves an order and publishes {@link OrderPlaced} in one transaction; the
 * outbox4j starter writes the event to the outbox in that transaction and its relay delivers it to RabbitMQ;
 * {@link BillingConsumer} receives it and bills the order exactly once through the inbox. {@link OrdersController} is
 * the web API; Actuator shows the outbox's health, its quarantined entries (requeue, discard) and its meters
 * (Prometheus). {@link OrdersTopology} declares the example's own exchange and queues afresh at every start.
 */
@SpringBootApplication
public class OrdersApplication {

  /**
   * @param args Spring Boot arguments
   */
  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }

  /**
   * @param exchange the exchange the events go to
   * @return the route of {@link OrderPlaced} events: {@code <exchange>/placed}, ordered per order id
   */
  @Bean
  OutboxEventRoute<OrderPlaced> orderPlacedRoute(@Value("${orders.exchange}") String exchange) {
    return OutboxEventRoute.of(OrderPlaced.class, exchange + "/placed", OrderPlaced::orderId);
  }

  /**
   * @param exchange the exchange the events go to
   * @return the route of {@link LoyaltyPointsAwarded} events: {@code <exchange>/loyalty}, ordered per order id
   */
  @Bean
  OutboxEventRoute<LoyaltyPointsAwarded> loyaltyRoute(@Value("${orders.exchange}") String exchange) {
    return OutboxEventRoute.of(LoyaltyPointsAwarded.class, exchange + "/loyalty", LoyaltyPointsAwarded::orderId);
  }
}
