package dev.outbox4j.examples.quarkus;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

/** Saves an order and fires its {@link OrderPlaced} event, which the outbox4j extension writes in the same transaction. */
@ApplicationScoped
public class OrderService {
  @Inject AgroalDataSource dataSource;
  @Inject Event<OrderPlaced> placed;

  /**
   * @param totalCents the order's total
   * @return the order placed
   */
  @Transactional
  public OrderPlaced place(long totalCents) {
    if (totalCents <= 0) {
      throw new IllegalArgumentException("totalCents must be positive, was " + totalCents);
    }
    OrderPlaced order = new OrderPlaced("order-" + UUID.randomUUID(), totalCents);
    try (Connection c = dataSource.getConnection();
        PreparedStatement insert = c.prepareStatement("INSERT INTO quarkus_orders (id, total_cents) VALUES (?, ?)")) {
      insert.setString(1, order.orderId());
      insert.setLong(2, order.totalCents());
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot save order " + order.orderId(), e);
    }
    // Same transaction: the event exists exactly when the order does.
    placed.fire(order);
    return order;
  }
}
