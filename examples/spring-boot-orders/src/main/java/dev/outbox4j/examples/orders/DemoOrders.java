package dev.outbox4j.examples.orders;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** Places a few orders at start-up, one of which is refused and rolls back (so its event never leaves). */
@Component
@ConditionalOnProperty(name = "orders.demo", havingValue = "true", matchIfMissing = true)
public class DemoOrders implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DemoOrders.class);

  private final OrderService orders;

  DemoOrders(OrderService orders) {
    this.orders = orders;
  }

  @Override
  public void run(ApplicationArguments args) {
    orders.place("order-1", 1_999);
    orders.place("order-2", 4_250);
    try {
      orders.place("order-3", -1);
    } catch (IllegalArgumentException e) {
      LOG.info("order-3 refused and rolled back: its event is not in the outbox");
    }
    LOG.info("placed order-1 and order-2; watch them being billed (Ctrl-C to stop)");
  }
}
