package dev.outbox4j.http;

import dev.outbox4j.spi.Transport;
import dev.outbox4j.testkit.TransportContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** The transport contract against a real HTTP server on 127.0.0.1. */
class HttpTransportContractTest extends TransportContract {
  private WebhookServer server;

  @Override
  protected Transport newTransport() {
    server = new WebhookServer();
    return HttpTransport.builder()
        .withEndpoint("orders", server.uri("/ok"))
        .withSigningSecret(StandardWebhooksTest.SECRET)
        .build();
  }

  @Override
  protected String prepareDestination() {
    server.received().clear();
    return "orders";
  }

  @Override
  protected Optional<Received> receive(Duration timeout) {
    try {
      WebhookServer.Request request = server.received().poll(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      return Optional.ofNullable(request).map(r -> new Received(r.body(), r.headers(),
          r.header(HttpTransport.MESSAGE_ID_HEADER), r.header(HttpTransport.ORDERING_KEY_HEADER)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  protected String unroutableDestination() {
    return "no-such-endpoint-alias";
  }

  @Override
  protected Transport unreachableTransport() {
    return HttpTransport.builder()
        .withEndpoint(destination(), URI.create("http://127.0.0.1:" + freePort() + "/ok"))
        .withConnectTimeout(Duration.ofSeconds(2))
        .withRequestTimeout(Duration.ofSeconds(2))
        .build();
  }

  @Override
  protected void cleanUpDestination() {
    server.close();
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
