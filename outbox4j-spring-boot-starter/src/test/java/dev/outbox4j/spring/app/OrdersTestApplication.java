package dev.outbox4j.spring.app;

import dev.outbox4j.Message;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A small Boot application for the tests: an order table, a service that writes orders with messages and events, and
 * an in-process transport that records what the relay delivered (destination {@code poison} is refused for good).
 */
@SpringBootApplication
public class OrdersTestApplication {

  /** @return what the relay delivered, in delivery order */
  @Bean
  Queue<Message> delivered() {
    return new ConcurrentLinkedQueue<>();
  }

  /**
   * @param delivered the record of deliveries
   * @return the relay's transport
   */
  @Bean
  Transport transport(Queue<Message> delivered) {
    return InProcessTransport.of(message -> {
      if (message.destination().equals("poison")) {
        return DeliveryOutcome.permanent("refused by the test consumer");
      }
      delivered.add(message);
      return DeliveryOutcome.delivered();
    });
  }
}
