package dev.outbox4j.examples.orders;

import java.util.Optional;
import java.util.UUID;
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
   * Places an order under a new id, so the application can be restarted on the same database.
   *
   * @param totalCents the total; a negative total is refused and rolls back
   * @return the new order's id
   */
  @Transactional
  public String place(long totalCents) {
    String orderId = "order-" + UUID.randomUUID();
    place(orderId, totalCents);
    return orderId;
  }

  /**
   * Saves the order and publishes {@link OrderPlaced} in the same transaction.
   *
   * @param orderId the order id
   * @param totalCents the total; a negative total is refused after both writes, so the transaction rolls back
   */
  @Transactional
  public void place(String orderId, long totalCents) {
    jdbc.update("INSERT INTO boot_orders (id, total_cents) VALUES (?, ?)", orderId, totalCents);
    events.publishEvent(new OrderPlaced(orderId, totalCents));
    if (totalCents < 0) {
      throw new IllegalArgumentException("order " + orderId + " has a negative total");
    }
  }

  /**
   * Awards loyalty points for an order: publishes {@link LoyaltyPointsAwarded} (the loyalty service has no queue bound
   * yet, so RabbitMQ returns it and the relay quarantines it; see {@link DemoOrders}).
   *
   * @param orderId the order
   * @param points the points
   */
  @Transactional
  public void awardLoyaltyPoints(String orderId, long points) {
    events.publishEvent(new LoyaltyPointsAwarded(orderId, points));
  }

  /**
   * @param orderId an order id
   * @return the order, or empty when there is none
   */
  @Transactional(readOnly = true)
  public Optional<Order> find(String orderId) {
    return jdbc.query("SELECT o.id, o.total_cents, i.order_id AS billed FROM boot_orders o"
        + " LEFT JOIN boot_invoices i ON i.order_id = o.id WHERE o.id = ?",
        (row, n) -> new Order(row.getString("id"), row.getLong("total_cents"), row.getString("billed") != null),
        orderId).stream().findFirst();
  }

  /**
   * An order as the web API shows it.
   *
   * @param orderId the id
   * @param totalCents the total
   * @param billed whether billing received its event and wrote the invoice
   */
  public record Order(String orderId, long totalCents, boolean billed) {}
}
