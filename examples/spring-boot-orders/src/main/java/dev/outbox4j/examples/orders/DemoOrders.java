package dev.outbox4j.examples.orders;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * At every start, whatever earlier starts left in the database and on the broker: places two orders (new ids each
 * time), and one that is refused and rolls back (so its event never leaves); then awards loyalty points for the first
 * order. Unless {@code orders.loyalty-bound=true}, no queue is bound to that event's routing key
 * ({@link OrdersTopology} removes any binding an earlier start left), so every start adds one quarantined entry, for
 * trying the Actuator endpoint's requeue and discard.
 */
@Component
@ConditionalOnProperty(name = "orders.demo", havingValue = "true", matchIfMissing = true)
public class DemoOrders implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DemoOrders.class);

  private final OrderService orders;
  private final Environment environment;
  private final String loyaltyQueue;
  private final boolean loyaltyBound;

  DemoOrders(OrderService orders, Environment environment, @Value("${orders.loyalty-queue}") String loyaltyQueue,
      @Value("${orders.loyalty-bound}") boolean loyaltyBound) {
    this.orders = orders;
    this.environment = environment;
    this.loyaltyQueue = loyaltyQueue;
    this.loyaltyBound = loyaltyBound;
  }

  @Override
  public void run(ApplicationArguments args) {
    String first = orders.place(1_999);
    String second = orders.place(4_250);
    try {
      orders.place(-1);
    } catch (IllegalArgumentException e) {
      LOG.info("an order with a negative total was refused and rolled back: its event is not in the outbox");
    }
    LOG.info("placed {} and {}; watch them being billed", first, second);
    orders.awardLoyaltyPoints(first, 20);
    if (loyaltyBound) {
      LOG.info("awarded loyalty points for {}: delivered to queue {}", first, loyaltyQueue);
    } else {
      LOG.info("awarded loyalty points for {}: no queue is bound to routing key 'loyalty', so RabbitMQ returns the"
          + " event and the relay quarantines it", first);
    }
    String base = "http://localhost:" + environment.getProperty("local.server.port", "8080");
    LOG.info("quarantined entries: GET {}/actuator/outbox4j; requeue: POST {}/actuator/outbox4j/<id>; discard:"
        + " DELETE {}/actuator/outbox4j/<id>; metrics: {}/actuator/prometheus;"
        + " new order: POST {}/orders?totalCents=999", base, base, base, base, base);
  }
}
