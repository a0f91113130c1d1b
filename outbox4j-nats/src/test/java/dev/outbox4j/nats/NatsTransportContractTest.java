package dev.outbox4j.nats;

import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.TransportContract;
import io.nats.client.impl.Headers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The transport contract against the real NATS JetStream on 127.0.0.1:4222. */
class NatsTransportContractTest extends TransportContract {
  private NatsTestStream stream;

  @Override
  protected Transport newTransport() {
    return NatsTransport.builder().withServer(NatsTestStream.SERVER).build();
  }

  @Override
  protected String prepareDestination() {
    stream = new NatsTestStream();
    stream.startConsuming();
    return stream.subject();
  }

  @Override
  protected Optional<Received> receive(Duration timeout) {
    try {
      io.nats.client.Message message = stream.received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return Optional.ofNullable(message).map(m -> {
        Map<String, String> headers = new HashMap<>();
        Headers natsHeaders = m.getHeaders();
        if (natsHeaders != null) {
          natsHeaders.keySet().forEach(name -> headers.put(name, natsHeaders.getFirst(name)));
        }
        return new Received(m.getData(), headers, headers.get(NatsTransport.MESSAGE_ID_HEADER), null);
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  protected String unroutableDestination() {
    return "outbox4j.no.stream.captures." + stream.name.toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  protected Transport unreachableTransport() {
    return NatsTransport.builder().withServer("nats://127.0.0.1:" + freePort())
        .withConnectionTimeout(Duration.ofSeconds(2)).build();
  }

  @Override
  protected void cleanUpDestination() {
    stream.close();
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
