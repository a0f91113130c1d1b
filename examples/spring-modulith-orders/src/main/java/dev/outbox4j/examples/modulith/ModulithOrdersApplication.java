package dev.outbox4j.examples.modulith;

import dev.outbox4j.examples.modulith.order.OrderService;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Modulith application of two modules, {@code order} and {@code shipping}. {@code OrderPlaced} is
 * {@code @Externalized}: outbox4j writes it in the placing transaction and its relay sends it to RabbitMQ (exchange
 * {@code orders}, routing key {@code placed}). The shipping module listens to the same event inside the application,
 * through Modulith's event publication registry, as before.
 */
@SpringBootApplication
public class ModulithOrdersApplication {

  /** @param args Spring Boot arguments, such as {@code --spring.datasource.url=...} */
  public static void main(String[] args) {
    SpringApplication.run(ModulithOrdersApplication.class, args);
  }

  /**
   * @param orders the order module
   * @return at start, places two orders and has a third refused (its transaction rolls back: no event leaves)
   */
  @Bean
  @ConditionalOnProperty(name = "orders.demo", havingValue = "true")
  ApplicationRunner demoOrders(OrderService orders) {
    return arguments -> {
      orders.place(1_999);
      orders.place(4_500);
      try {
        orders.place(-1);
      } catch (IllegalArgumentException refused) {
        System.out.println("refused: " + refused.getMessage());
      }
    };
  }
}
