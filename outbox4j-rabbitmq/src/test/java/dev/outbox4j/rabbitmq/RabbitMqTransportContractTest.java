package dev.outbox4j.rabbitmq;

import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.TransportContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The transport contract against the real RabbitMQ on 127.0.0.1:5672. */
class RabbitMqTransportContractTest extends TransportContract {
  private RabbitMqTestBroker broker;

  @Override
  protected Transport newTransport() {
    return RabbitMqTransport.builder().withHost("127.0.0.1").withPort(RabbitMqTestBroker.PORT).build();
  }

  @Override
  protected String prepareDestination() {
    broker = new RabbitMqTestBroker();
    broker.startConsuming();
    return broker.destination();
  }

  @Override
  protected Optional<Received> receive(Duration timeout) {
    try {
      RabbitMqTestBroker.Delivery delivery = broker.received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return Optional.ofNullable(delivery).map(d -> {
        Map<String, String> headers = new HashMap<>();
        if (d.properties().getHeaders() != null) {
          d.properties().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
        }
        return new Received(d.body(), headers, d.properties().getMessageId(), null);
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  protected String unroutableDestination() {
    return broker.exchange + "/no-queue-is-bound-to-this-key";
  }

  @Override
  protected Transport unreachableTransport() {
    return RabbitMqTransport.builder().withHost("127.0.0.1").withPort(freePort())
        .withConnectionTimeout(Duration.ofSeconds(2)).build();
  }

  @Override
  protected void cleanUpDestination() {
    broker.close();
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
