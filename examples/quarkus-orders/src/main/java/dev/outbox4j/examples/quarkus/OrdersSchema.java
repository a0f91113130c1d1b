package dev.outbox4j.examples.quarkus;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Statement;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The example's own tables and queue, created at start-up if missing (the outbox tables are the extension's). A real
 * application would use Flyway for the table and its broker's definitions for the queue.
 */
@ApplicationScoped
public class OrdersSchema {
  @Inject AgroalDataSource dataSource;

  @ConfigProperty(name = "orders.queue")
  String queue;

  @ConfigProperty(name = "outbox4j.transport.rabbitmq.host")
  String host;

  @ConfigProperty(name = "outbox4j.transport.rabbitmq.port")
  int port;

  void create(@Observes StartupEvent event) throws Exception {
    try (java.sql.Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS quarkus_orders (id VARCHAR(64) PRIMARY KEY, total_cents BIGINT NOT NULL)");
    }
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(host);
    factory.setPort(port);
    try (Connection connection = factory.newConnection("quarkus-orders-setup");
        Channel channel = connection.createChannel()) {
      channel.queueDeclare(queue, true, false, false, null);
    }
  }
}
