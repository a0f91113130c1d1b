package dev.outbox4j.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox4j.rabbitmq.AmqpAddress;
import dev.outbox4j.rabbitmq.RabbitMqTransport;
import dev.outbox4j.spi.Transport;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * RabbitMQ for the broker scenarios: the service on 127.0.0.1:5672, a fresh durable direct exchange and durable
 * classic queue per scenario. Both sides publish persistent messages, mandatory, on a channel in publisher-confirm
 * mode, and count a message only once the broker acked it (for a persistent message on a durable queue: once it is
 * on disk). Not consumed during the run; purged between runs.
 */
final class RabbitMqBenchBroker implements BenchBroker {
  static final String HOST = "127.0.0.1";
  static final int PORT = 5672;
  private static final String ROUTING_KEY = "orders";

  private final String exchange = "outbox4j-bench-" + UUID.randomUUID();
  private final String queue = exchange;
  private final Connection admin;
  private final Channel channel;

  RabbitMqBenchBroker() throws Exception {
    admin = factory().newConnection("outbox4j-bench-admin");
    channel = admin.createChannel();
    channel.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, true, false, null);
    channel.queueDeclare(queue, true, false, false, null);
    channel.queueBind(queue, exchange, ROUTING_KEY);
  }

  private static ConnectionFactory factory() {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(HOST);
    factory.setPort(PORT);
    return factory;
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public String describe() {
    return "RabbitMQ (durable classic queue, persistent), publisher confirms, mandatory";
  }

  @Override
  public Transport transport() {
    AmqpAddress address = new AmqpAddress(exchange, ROUTING_KEY);
    return RabbitMqTransport.builder().withHost(HOST).withPort(PORT).withConnectionName("outbox4j-bench-relay")
        .withAddressMapping(m -> address).build();
  }

  @Override
  public Publisher publisher() throws Exception {
    Connection connection = factory().newConnection("outbox4j-bench-baseline");
    Channel publishing = connection.createChannel();
    publishing.confirmSelect();
    AtomicInteger returned = new AtomicInteger();
    publishing.addReturnListener(unroutable -> returned.incrementAndGet());
    return new Publisher() {
      @Override
      public void publishAll(List<Row> rows) throws Exception {
        for (Row row : rows) {
          AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
              .messageId(row.id())
              .contentType(row.contentType())
              .deliveryMode(2)
              .headers(new HashMap<>())
              .timestamp(new Date())
              .build();
          publishing.basicPublish(exchange, ROUTING_KEY, true, properties, row.payload());
        }
        publishing.waitForConfirmsOrDie(30_000);
        if (returned.get() > 0) {
          throw new IllegalStateException(returned.get() + " publishes returned unroutable");
        }
      }

      @Override
      public void close() throws Exception {
        connection.close();
      }
    };
  }

  @Override
  public void purge() throws Exception {
    channel.queuePurge(queue);
  }

  @Override
  public long stored() throws Exception {
    return channel.messageCount(queue);
  }

  @Override
  public void close() throws Exception {
    try {
      channel.queueDelete(queue);
      channel.exchangeDelete(exchange);
    } finally {
      admin.close();
    }
  }
}
