package dev.outbox4j.examples.modulith;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Declares what the externalized events need on RabbitMQ before the relay starts (it starts after every bean is
 * ready): exchange {@code orders}, and queue {@code orders.queue} ({@code orders.placed}; empty for none) bound to it with routing key {@code placed}, where
 * the events wait for a consumer. Without the exchange, RabbitMQ would refuse the events and the relay quarantine them.
 */
@Component
class RabbitTopology implements InitializingBean {
  private final String host;
  private final String queue;

  RabbitTopology(@Value("${outbox4j.transport.rabbitmq.host}") String host, @Value("${orders.queue}") String queue) {
    this.host = host;
    this.queue = queue;
  }

  @Override
  public void afterPropertiesSet() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(host);
    try (Connection connection = factory.newConnection(); Channel channel = connection.createChannel()) {
      channel.exchangeDeclare("orders", "direct", true);
      if (!queue.isEmpty()) {
        channel.queueDeclare(queue, true, false, false, null);
        channel.queueBind(queue, "orders", "placed");
      }
    }
  }
}
