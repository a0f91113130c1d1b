package dev.outbox4j.chaos;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * The far end of the relays, as the suite's orchestrator sees it: the message ids that arrived, in arrival order,
 * duplicates included. Also names the port the relays must connect to (behind the suite's {@code TcpProxy}) and what
 * they pass to their transport.
 */
interface ChaosConsumer extends AutoCloseable {
  /** @return {@code ledger} or {@code rabbitmq}: the relay's transport */
  String transport();

  /** @return the destination the writers address */
  String destination();

  /** @return the port on 127.0.0.1 of the service the relays deliver to (the proxy forwards there) */
  int servicePort();

  /**
   * @param proxyPort the proxy's port
   * @return the relay's transport arguments, connecting through the proxy
   */
  List<String> relayArguments(int proxyPort);

  /** @return every message id received so far, in arrival order */
  List<UUID> received();

  @Override
  void close();

  /**
   * The in-process transport's consumer: each relay's callback inserts the message into {@code chaos_received} in a
   * database of its own on the shared PostgreSQL service (this JVM's {@link RunDatabases} database); a
   * {@code BIGSERIAL} numbers the arrivals.
   */
  final class Ledger implements ChaosConsumer {
    private final String url = RunDatabases.postgresUrl();

    Ledger() {
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement()) {
        statement.execute("DROP TABLE IF EXISTS chaos_received");
        statement.execute("CREATE TABLE chaos_received (seq BIGSERIAL PRIMARY KEY, message_id VARCHAR(36) NOT NULL,"
            + " ordering_key VARCHAR(255) NOT NULL, relay VARCHAR(64) NOT NULL,"
            + " received_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the consumer ledger", e);
      }
    }

    @Override
    public String transport() {
      return "ledger";
    }

    @Override
    public String destination() {
      return "chaos-ledger";
    }

    @Override
    public int servicePort() {
      return 5432;
    }

    @Override
    public List<String> relayArguments(int proxyPort) {
      return List.of("ledgerUrl=jdbc:postgresql://127.0.0.1:" + proxyPort + "/" + RunDatabases.name()
          + "?user=postgres&connectTimeout=2&socketTimeout=10");
    }

    @Override
    public List<UUID> received() {
      List<UUID> ids = new ArrayList<>();
      try (Connection connection = DriverManager.getConnection(url);
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT message_id FROM chaos_received ORDER BY seq")) {
        while (rows.next()) {
          ids.add(UUID.fromString(rows.getString(1)));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return ids;
    }

    @Override
    public void close() {}
  }

  /**
   * The real broker: a queue of its own on the shared RabbitMQ (unique exchange and queue names per run), consumed
   * by this JVM directly (not through the proxy), auto-acknowledged; the arrival order is the queue's order.
   */
  final class Rabbit implements ChaosConsumer {
    private final String exchange = "chaos-" + UUID.randomUUID();
    private final String queue = "chaos-" + UUID.randomUUID();
    private final com.rabbitmq.client.Connection connection;
    private final List<UUID> ids = new ArrayList<>();

    Rabbit() {
      try {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(5672);
        connection = factory.newConnection("outbox4j-chaos-consumer");
        Channel channel = connection.createChannel();
        channel.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, false, false, null);
        channel.queueDeclare(queue, false, false, false, null);
        channel.queueBind(queue, exchange, "chaos");
        channel.basicConsume(queue, true, (tag, delivery) -> {
          synchronized (ids) {
            ids.add(UUID.fromString(delivery.getProperties().getMessageId()));
          }
        }, tag -> {});
      } catch (IOException | TimeoutException e) {
        throw new IllegalStateException("cannot set up the RabbitMQ consumer", e);
      }
    }

    @Override
    public String transport() {
      return "rabbitmq";
    }

    @Override
    public String destination() {
      return exchange + "/chaos";
    }

    @Override
    public int servicePort() {
      return 5672;
    }

    @Override
    public List<String> relayArguments(int proxyPort) {
      return List.of("brokerPort=" + proxyPort);
    }

    @Override
    public List<UUID> received() {
      synchronized (ids) {
        return List.copyOf(ids);
      }
    }

    @Override
    public void close() {
      try (Channel channel = connection.createChannel()) {
        channel.queueDelete(queue);
        channel.exchangeDelete(exchange);
      } catch (IOException | TimeoutException | RuntimeException e) {
        System.err.println("chaos: could not delete " + queue + ": " + e);
      } finally {
        try {
          connection.close();
        } catch (IOException | RuntimeException e) {
          // already closed
        }
      }
    }
  }
}
