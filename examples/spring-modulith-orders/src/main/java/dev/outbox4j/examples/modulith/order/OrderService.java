package dev.outbox4j.examples.modulith.order;

import java.util.UUID;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its {@link OrderPlaced} event commit together, or neither exists. */
@Service
public class OrderService {
  private final JdbcTemplate jdbc;
  private final ApplicationEventPublisher events;

  OrderService(JdbcTemplate jdbc, ApplicationEventPublisher events) {
    this.jdbc = jdbc;
    this.events = events;
  }

  /**
   * @param totalCents the total; a negative total is refused after both writes, so the transaction rolls back
   * @return the new order's id
   */
  @Transactional
  public String place(long totalCents) {
    String orderId = "order-" + UUID.randomUUID();
    jdbc.update("INSERT INTO orders (id, total_cents) VALUES (?, ?)", orderId, totalCents);
    events.publishEvent(new OrderPlaced(orderId, totalCents));
    if (totalCents < 0) {
      throw new IllegalArgumentException("order " + orderId + " has a negative total");
    }
    return orderId;
  }
}
