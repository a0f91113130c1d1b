package dev.outbox4j.examples.orders;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its event commit together, or neither exists. */
@Service
public class OrderService {
  private final JdbcTemplate jdbc;
  private final ApplicationEventPublisher events;

  OrderService(JdbcTemplate jdbc, ApplicationEventPublisher events) {
    this.jdbc = jdbc;
    this.events = events;
  }

  /**
   * Saves the order and publishes {@link OrderPlaced} in the same transaction.
   *
   * @param orderId the order id
   * @param totalCents the total; a negative total is refused after both writes, so the transaction rolls back
   */
  @Transactional
  public void place(String orderId, long totalCents) {
    jdbc.update("INSERT INTO orders (id, total_cents) VALUES (?, ?)", orderId, totalCents);
    events.publishEvent(new OrderPlaced(orderId, totalCents));
    if (totalCents < 0) {
      throw new IllegalArgumentException("order " + orderId + " has a negative total");
    }
  }
}
