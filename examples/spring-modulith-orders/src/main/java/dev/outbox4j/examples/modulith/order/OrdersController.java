package dev.outbox4j.examples.modulith.order;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The order module's web API: {@code POST /orders?totalCents=1999} places an order (its externalized event leaves
 * through the outbox), {@code GET /orders/{id}} shows it.
 */
@RestController
@RequestMapping("/orders")
public class OrdersController {
  private final OrderService orders;

  OrdersController(OrderService orders) {
    this.orders = orders;
  }

  /**
   * @param totalCents the order total; a negative one is refused (400) and nothing is written, event included
   * @return 201 with the order and its location
   */
  @PostMapping
  public ResponseEntity<OrderService.Order> place(@RequestParam long totalCents) {
    String id = orders.place(totalCents);
    return ResponseEntity.created(URI.create("/orders/" + id)).body(new OrderService.Order(id, totalCents));
  }

  /**
   * @param id the order id
   * @return the order, or 404
   */
  @GetMapping("/{id}")
  public ResponseEntity<OrderService.Order> find(@PathVariable String id) {
    return ResponseEntity.of(orders.find(id));
  }

  /**
   * @param refused why an order was refused
   * @return 400 with the reason; the order's transaction was rolled back
   */
  @ExceptionHandler(IllegalArgumentException.class)
  public ResponseEntity<Map<String, String>> refused(IllegalArgumentException refused) {
    return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", refused.getMessage()));
  }
}
