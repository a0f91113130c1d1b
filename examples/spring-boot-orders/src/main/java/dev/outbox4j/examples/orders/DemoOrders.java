package dev.outbox4j.examples.orders;

import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * At every start: places two orders (new ids each time, so a restart on the same database works), and one that is
 * refused and rolls back (so its event never leaves). On a start that finds no quarantined entry, it also awards
 * loyalty points for the first order, an event nobody receives yet: it ends up quarantined, for trying the Actuator
 * endpoint's requeue and discard.
 */
@Component
@ConditionalOnProperty(name = "orders.demo", havingValue = "true", matchIfMissing = true)
public class DemoOrders implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DemoOrders.class);

  private final OrderService orders;
  private final JdbcOutboxStore outbox;
  private final Environment environment;

  DemoOrders(OrderService orders, JdbcOutboxStore outbox, Environment environment) {
    this.orders = orders;
    this.outbox = outbox;
    this.environment = environment;
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
    String base = "http://localhost:" + environment.getProperty("local.server.port", "8080");
    if (outbox.quarantined(QuarantineQuery.first(1)).isEmpty()) {
      orders.awardLoyaltyPoints(first, 20);
      String loyaltyQueue = environment.getProperty("orders.loyalty-queue", "");
      if (loyaltyQueue.isBlank()) {
        LOG.info("awarded loyalty points for {}: no queue is bound to routing key 'loyalty' yet, so RabbitMQ returns"
            + " the event and the relay quarantines it", first);
      } else {
        LOG.info("awarded loyalty points for {}: delivered to queue {}", first, loyaltyQueue);
      }
    }
    LOG.info("quarantined entries: GET {}/actuator/outbox4j; requeue: POST {}/actuator/outbox4j/<id>; discard:"
        + " DELETE {}/actuator/outbox4j/<id>; metrics: {}/actuator/prometheus; new order: POST {}/orders?totalCents=999",
        base, base, base, base, base);
  }
}
