package dev.outbox4j.examples.modulith;

import dev.outbox4j.examples.modulith.order.OrderService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * At every start, whatever earlier starts left: places two orders (new ids each time) and has a third refused (its
 * transaction rolls back: its event never exists), and says where to look.
 */
@Component
@ConditionalOnProperty(name = "orders.demo", havingValue = "true")
class DemoOrders implements ApplicationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(DemoOrders.class);

  private final OrderService orders;
  private final Environment environment;
  private final String queue;

  DemoOrders(OrderService orders, Environment environment, @Value("${orders.queue}") String queue) {
    this.orders = orders;
    this.environment = environment;
    this.queue = queue;
  }

  @Override
  public void run(ApplicationArguments args) {
    String first = orders.place(1_999);
    String second = orders.place(4_500);
    try {
      orders.place(-1);
    } catch (IllegalArgumentException refused) {
      LOG.info("an order with a negative total was refused and rolled back: its event is not in the outbox");
    }
    LOG.info("placed {} and {}; their events go to exchange {} (queue {}), and the shipping module prepares their"
        + " shipments", first, second, RabbitTopology.EXCHANGE, queue.isEmpty() ? "none" : queue);
    String base = "http://localhost:" + environment.getProperty("local.server.port", "8081");
    LOG.info("new order: POST {}/orders?totalCents=999; an order: GET {}/orders/<id>; health: GET {}/actuator/health;"
        + " entries waiting for an operator: GET {}/actuator/outbox4j", base, base, base, base);
  }
}
