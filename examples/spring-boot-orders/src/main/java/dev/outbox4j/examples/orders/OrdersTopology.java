package dev.outbox4j.examples.orders;

import java.util.ArrayList;
import java.util.List;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.Queue;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The example's RabbitMQ objects, the same after every start whatever earlier starts left: exchange
 * {@code orders.exchange} ({@code boot-orders}) with queue {@code orders.queue} ({@code boot-orders.billing}) bound to
 * routing key {@code placed}, and queue {@code orders.loyalty-queue} ({@code boot-orders.loyalty}) bound to
 * {@code loyalty} only when {@code orders.loyalty-bound=true}.
 *
 * <p>Why the exchange is deleted and declared again before the consumer and the relay start: a binding outlives the
 * application that made it, so a start with {@code orders.loyalty-bound=true} would otherwise leave the loyalty queue
 * bound for every later start, and the loyalty event that should be quarantined would be delivered. Deleting the
 * exchange removes every binding an earlier start (or anyone) made; the queues and the messages in them stay.
 */
@Configuration(proxyBeanMethods = false)
class OrdersTopology implements SmartInitializingSingleton {
  private final AmqpAdmin admin;
  private final String exchange;

  OrdersTopology(AmqpAdmin admin, @Value("${orders.exchange}") String exchange) {
    this.admin = admin;
    this.exchange = exchange;
  }

  /**
   * @param queue the billing queue
   * @param loyaltyQueue the loyalty queue
   * @param loyaltyBound whether the loyalty queue is bound to routing key {@code loyalty}; {@code false} (the default):
   *     loyalty events are unroutable and end up quarantined
   * @return the exchange, the queues and the bindings of this start, declared by Spring AMQP
   */
  @Bean
  Declarables ordersDeclarables(@Value("${orders.queue}") String queue,
      @Value("${orders.loyalty-queue}") String loyaltyQueue, @Value("${orders.loyalty-bound}") boolean loyaltyBound) {
    DirectExchange orders = new DirectExchange(exchange, true, false);
    Queue billing = new Queue(queue, true);
    Queue loyalty = new Queue(loyaltyQueue, true);
    List<Declarable> declarables = new ArrayList<>(List.of(orders, billing, loyalty,
        BindingBuilder.bind(billing).to(orders).with("placed")));
    if (loyaltyBound) {
      declarables.add(BindingBuilder.bind(loyalty).to(orders).with("loyalty"));
    }
    return new Declarables(declarables);
  }

  /** Deletes the exchange with every binding earlier starts left, then declares this start's objects. */
  @Override
  public void afterSingletonsInstantiated() {
    admin.deleteExchange(exchange);
    admin.initialize();
  }
}
