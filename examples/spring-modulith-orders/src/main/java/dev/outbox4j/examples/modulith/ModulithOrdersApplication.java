package dev.outbox4j.examples.modulith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Modulith application of two modules, {@code order} and {@code shipping}. {@code OrderPlaced} is
 * {@code @Externalized}: outbox4j writes it in the placing transaction and its relay sends it to RabbitMQ (exchange
 * {@code modulith-orders}, routing key {@code placed}). The shipping module listens to the same event inside the
 * application, through Modulith's event publication registry, as before. {@code OrdersController} is the web API;
 * Actuator shows the outbox's health and the entries waiting for an operator.
 */
@SpringBootApplication
public class ModulithOrdersApplication {

  /** @param args Spring Boot arguments, such as {@code --spring.datasource.url=...} */
  public static void main(String[] args) {
    SpringApplication.run(ModulithOrdersApplication.class, args);
  }
}
