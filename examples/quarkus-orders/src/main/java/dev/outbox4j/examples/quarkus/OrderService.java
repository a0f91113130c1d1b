package dev.outbox4j.examples.quarkus;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox4j.Message;
import dev.outbox4j.quarkus.TransactionalOutbox;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Saves an order and writes its {@link OrderPlaced} event to the outbox in one transaction. */
@ApplicationScoped
public class OrderService {
  @Inject AgroalDataSource dataSource;
  @Inject TransactionalOutbox outbox;
  @Inject ObjectMapper json;

  @ConfigProperty(name = "orders.queue")
  String queue;

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
    outbox.write(Message.builder()
        .withDestination("/" + queue)
        .withOrderingKey(order.orderId())
        .withContentType("application/json")
        .withPayload(toJson(order))
        .build());
    return order;
  }

  private byte[] toJson(OrderPlaced order) {
    try {
      return json.writeValueAsBytes(order);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
