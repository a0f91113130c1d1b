package dev.outbox4j.spring.app;

import dev.outbox4j.Message;
import dev.outbox4j.spring.TransactionalOutbox;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Saves orders and their messages, the ways an application would. */
@Service
public class OrderService {
  /** Thrown on purpose after the writes, to roll the transaction back. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused() {
      super("refused after writing");
    }
  }

  private final JdbcTemplate jdbc;
  private final TransactionalOutbox outbox;
  private final ApplicationEventPublisher events;

  OrderService(JdbcTemplate jdbc, TransactionalOutbox outbox, ApplicationEventPublisher events) {
    this.jdbc = jdbc;
    this.outbox = outbox;
    this.events = events;
  }

  /**
   * @param orderId the order
   * @param fail throw after writing both
   */
  @Transactional
  public void placeWithMessage(String orderId, boolean fail) {
    saveOrder(orderId);
    outbox.write(Message.builder().withDestination("orders/placed").withOrderingKey(orderId)
        .withHeader("order", orderId).withPayload("{\"orderId\":\"" + orderId + "\"}").build());
    if (fail) {
      throw new Refused();
    }
  }

  /**
   * @param orderId the order
   * @param fail throw after writing both
   */
  @Transactional
  public void placeWithEvent(String orderId, boolean fail) {
    saveOrder(orderId);
    events.publishEvent(new OrderPlaced(orderId, 3));
    if (fail) {
      throw new Refused();
    }
  }

  /** @param orderId the order; written with no transaction */
  public void placeWithoutTransaction(String orderId) {
    outbox.write(Message.builder().withDestination("orders/placed").withHeader("order", orderId).build());
  }

  /** @param orderId the order; published with no transaction */
  public void publishWithoutTransaction(String orderId) {
    events.publishEvent(new OrderPlaced(orderId, 1));
  }

  /** @param destination where a message goes, written in a transaction of its own */
  @Transactional
  public void send(String destination) {
    outbox.write(Message.builder().withDestination(destination).build());
  }

  private void saveOrder(String orderId) {
    jdbc.update("INSERT INTO sbt_orders (id) VALUES (?)", orderId);
  }
}
