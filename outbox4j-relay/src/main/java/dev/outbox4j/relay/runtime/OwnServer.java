package dev.outbox4j.relay.runtime;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.spi.TlsSettings;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Opens the relay's own server (dashboard, metrics, health, operator API): plain HTTP by default, HTTPS when the
 * configuration names a certificate and key ({@code server.tls.*}). Both are the JDK's server; with HTTPS every
 * connection is TLS, no plain port stays open beside it.
 *
 * <p>Stateless.
 */
final class OwnServer {
  private static final int BACKLOG = 64;

  private OwnServer() {}

  static HttpServer create(RelayConfig.Server settings) throws IOException {
    InetSocketAddress address = new InetSocketAddress(settings.bind(), settings.port());
    TlsSettings tls = settings.tls();
    if (tls == null) {
      return HttpServer.create(address, BACKLOG);
    }
    HttpsServer server = HttpsServer.create(address, BACKLOG);
    server.setHttpsConfigurator(new HttpsConfigurator(tls.serverContext()));
    return server;
  }
}
