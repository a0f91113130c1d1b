package dev.outbox4j.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DeliverCallback;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The RabbitMQ on 127.0.0.1:5672 seen from a test: a unique exchange and queue per test (deleted afterwards) and a real
 * consumer that collects what arrives.
 */
final class RabbitMqTestBroker implements AutoCloseable {
  static final int PORT = 5672;

  /** One delivery as the consumer saw it. */
  record Delivery(byte[] body, AMQP.BasicProperties properties) {}

  final String exchange = "outbox4j-test-" + UUID.randomUUID();
  final String queue = "outbox4j-test-" + UUID.randomUUID();
  final String routingKey = "orders";
  private final Connection connection;
  private final Channel channel;
  final BlockingQueue<Delivery> received = new LinkedBlockingQueue<>();

  RabbitMqTestBroker() {
    this(Map.of());
  }

  /** @param queueArguments arguments of the test queue, for example a length limit */
  RabbitMqTestBroker(Map<String, Object> queueArguments) {
    try {
      ConnectionFactory factory = new ConnectionFactory();
      factory.setHost("127.0.0.1");
      factory.setPort(PORT);
      connection = factory.newConnection("outbox4j-test-consumer");
      channel = connection.createChannel();
      channel.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false, true, null);
      channel.queueDeclare(queue, false, false, true, queueArguments);
      channel.queueBind(queue, exchange, routingKey);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /** @return {@code exchange/routingKey} of the test queue */
  String destination() {
    return exchange + "/" + routingKey;
  }

  /** Starts the consumer, which acknowledges automatically and records each delivery. */
  void startConsuming(DeliverCallback onEach) {
    try {
      channel.basicConsume(queue, true, (tag, delivery) -> {
        received.add(new Delivery(delivery.getBody(), delivery.getProperties()));
        onEach.handle(tag, delivery);
      }, tag -> {});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void startConsuming() {
    startConsuming((tag, delivery) -> {});
  }

  Delivery next(Duration timeout) throws InterruptedException {
    Delivery delivery = received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (delivery == null) {
      throw new AssertionError("nothing arrived within " + timeout);
    }
    return delivery;
  }

  long queueDepth() throws IOException {
    return channel.messageCount(queue);
  }

  void deleteExchange() throws IOException {
    channel.exchangeDelete(exchange);
  }

  @Override
  public void close() {
    try {
      channel.queueDelete(queue);
      channel.exchangeDelete(exchange);
    } catch (IOException | RuntimeException e) {
      // already gone
    }
    try {
      connection.close();
    } catch (IOException | RuntimeException e) {
      // closing a test connection
    }
  }
}
