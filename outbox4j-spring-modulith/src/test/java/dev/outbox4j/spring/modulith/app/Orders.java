package dev.outbox4j.spring.modulith.app;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Saves orders and publishes their events in the same transaction. */
@Service
public class Orders {
  private final JdbcTemplate jdbc;
  private final ApplicationEventPublisher events;

  Orders(JdbcTemplate jdbc, ApplicationEventPublisher events) {
    this.jdbc = jdbc;
    this.events = events;
  }

  /**
   * @param orderId the order
   * @param sequence its n-th event
   * @param refuse throw after both writes, so the transaction rolls back
   */
  @Transactional
  public void place(String orderId, int sequence, boolean refuse) {
    jdbc.update("INSERT INTO smt_orders (id, sequence) VALUES (?, ?)", orderId, sequence);
    events.publishEvent(new OrderPlaced(orderId, sequence));
    if (refuse) {
      throw new Refused(orderId);
    }
  }

  /** @param orderId the order; publishes {@link OrderPlaced} with no transaction in progress */
  public void placeWithoutTransaction(String orderId) {
    events.publishEvent(new OrderPlaced(orderId, 0));
  }

  /** @param orderId the order; publishes {@link OrderNoted}, which is not externalized */
  @Transactional
  public void note(String orderId) {
    events.publishEvent(new OrderNoted(orderId));
  }

  /** The order was refused after its writes. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String orderId) {
      super("order " + orderId + " refused");
    }
  }
}
