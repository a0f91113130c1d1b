package dev.outbox4j.examples.modulith.order;

import java.util.Optional;
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
   * Places an order under a new id, so the application can be restarted on the same database.
   *
   * @param totalCents the total; a negative total is refused after both writes, so the transaction rolls back
   * @return the new order's id
   */
  @Transactional
  public String place(long totalCents) {
    String orderId = "order-" + UUID.randomUUID();
    jdbc.update("INSERT INTO modulith_orders (id, total_cents) VALUES (?, ?)", orderId, totalCents);
    events.publishEvent(new OrderPlaced(orderId, totalCents));
    if (totalCents < 0) {
      throw new IllegalArgumentException("order " + orderId + " has a negative total");
    }
    return orderId;
  }

  /**
   * @param orderId an order id
   * @return the order, or empty when there is none
   */
  @Transactional(readOnly = true)
  public Optional<Order> find(String orderId) {
    return jdbc.query("SELECT id, total_cents FROM modulith_orders WHERE id = ?",
        (row, n) -> new Order(row.getString("id"), row.getLong("total_cents")), orderId).stream().findFirst();
  }

  /**
   * An order as the web API shows it.
   *
   * @param orderId the id
   * @param totalCents the total
   */
  public record Order(String orderId, long totalCents) {}
}
