package dev.outbox4j.examples.modulith;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Declares what the externalized events need on RabbitMQ before the relay starts (it starts after every bean is
 * ready): exchange {@value #EXCHANGE} (the target of {@code OrderPlaced}'s {@code @Externalized}), and queue
 * {@code orders.queue} ({@code modulith-orders.placed}; empty for none) bound to it with routing key {@code placed},
 * where the events wait for a consumer. Without the exchange, RabbitMQ would refuse the events and the relay quarantine
 * them. Both declarations are idempotent, so every start finds the same topology whatever earlier starts left.
 */
@Component
class RabbitTopology implements InitializingBean {
  /** The example's exchange; the destination of {@code OrderPlaced} is {@code modulith-orders/placed}. */
  static final String EXCHANGE = "modulith-orders";

  private final ConnectionFactory factory = new ConnectionFactory();
  private final String queue;

  RabbitTopology(@Value("${outbox4j.transport.rabbitmq.host}") String host,
      @Value("${outbox4j.transport.rabbitmq.port:5672}") int port,
      @Value("${outbox4j.transport.rabbitmq.virtual-host:/}") String virtualHost,
      @Value("${orders.queue}") String queue) {
    factory.setHost(host);
    factory.setPort(port);
    factory.setVirtualHost(virtualHost);
    this.queue = queue;
  }

  @Override
  public void afterPropertiesSet() throws Exception {
    try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
      channel.exchangeDeclare(EXCHANGE, "direct", true);
      if (!queue.isEmpty()) {
        channel.queueDeclare(queue, true, false, false, null);
        channel.queueBind(queue, EXCHANGE, "placed");
      }
    }
  }
}
