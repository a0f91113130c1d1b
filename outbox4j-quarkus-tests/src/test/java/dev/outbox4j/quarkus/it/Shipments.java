package dev.outbox4j.quarkus.it;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The test application's shipping: saves a shipment and fires its {@link OrderShipped} CDI event. */
@ApplicationScoped
public class Shipments {
  @Inject AgroalDataSource dataSource;
  @Inject Event<OrderShipped> shipped;

  /** Saves the shipment and fires its event; both commit together. */
  @Transactional
  public void ship(String orderId, int parcels) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement insert = c.prepareStatement("INSERT INTO test_order (id) VALUES (?)")) {
      insert.setString(1, "shipment-" + orderId);
      insert.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    shipped.fire(new OrderShipped(orderId, parcels));
  }

  /** Saves the shipment and fires its event, then fails: the transaction rolls back. */
  @Transactional
  public void shipThenFail(String orderId, int parcels) {
    ship(orderId, parcels);
    throw new IllegalStateException("the shipment of " + orderId + " is refused after firing");
  }

  /** Fires the event with no transaction in progress. */
  public void fireWithoutTransaction(String orderId) {
    shipped.fire(new OrderShipped(orderId, 1));
  }
}
