package dev.outbox4j.examples.modulith.shipping;

import dev.outbox4j.examples.modulith.order.OrderPlaced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.stereotype.Component;

/** The shipping module: prepares a shipment for each placed order, after the order's commit, as Modulith runs it. */
@Component
class ShippingListener {
  private final JdbcTemplate jdbc;

  ShippingListener(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @ApplicationModuleListener
  void on(OrderPlaced placed) {
    jdbc.update("INSERT INTO modulith_shipments (order_id) VALUES (?)", placed.orderId());
  }
}
