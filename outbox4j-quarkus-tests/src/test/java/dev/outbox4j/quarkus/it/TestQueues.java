package dev.outbox4j.quarkus.it;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Queues of this test JVM's own on the machine's RabbitMQ, read directly (not through the proxy the relay uses). Each
 * queue is bound to the default exchange, so the outbox destination is {@code /<queue>}. Registered as a static
 * extension of a test class, it closes its connection after the class's tests.
 */
final class TestQueues implements AfterAllCallback {
  private final Connection connection;

  TestQueues() {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(5672);
    try {
      connection = factory.newConnection("outbox4j-quarkus-tests");
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException("RabbitMQ at 127.0.0.1:5672 is needed", e);
    }
  }

  /** A queue whose received payloads are collected in arrival order. */
  record Queue(String destination, List<String> received) {}

  Queue queue(String name) {
    return declared("quarkus-" + name + "-" + RunDatabases.name());
  }

  /** @return the queue of that exact name, declared and consumed */
  Queue declared(String queue) {
    List<String> received = new CopyOnWriteArrayList<>();
    try {
      Channel channel = connection.createChannel();
      channel.queueDeclare(queue, false, false, true, null);
      channel.basicConsume(queue, true,
          (tag, delivery) -> received.add(new String(delivery.getBody(), StandardCharsets.UTF_8)), tag -> { });
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new Queue("/" + queue, received);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    connection.close();
  }
}
