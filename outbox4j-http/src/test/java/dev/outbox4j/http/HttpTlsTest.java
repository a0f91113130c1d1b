package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.TestCertificates;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP transport against an HTTPS receiver that requires a client certificate from the test CA and basic
 * authentication: a delivery succeeds with both; a wrong CA, an expired server certificate, a missing client
 * certificate and a wrong password each fail as an outage, naming no secret.
 */
class HttpTlsTest {
  private static final String USER = "relay";
  private static final String PASSWORD = "h77p-Secret-pw";

  @TempDir
  static Path directory;
  private static TestCertificates certificates;

  @BeforeAll
  static void makeCertificates() {
    certificates = TestCertificates.createIn(directory.resolve("certs"));
  }

  /** An HTTPS receiver that needs a client certificate; answers 200 to the right basic credentials, else 401. */
  private static final class Receiver implements AutoCloseable {
    final HttpsServer server;
    final List<String> clients = new CopyOnWriteArrayList<>();

    Receiver(SSLContext context) throws Exception {
      server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
      server.setHttpsConfigurator(new HttpsConfigurator(context) {
        @Override
        public void configure(HttpsParameters parameters) {
          var ssl = context.getDefaultSSLParameters();
          ssl.setNeedClientAuth(true);
          parameters.setSSLParameters(ssl);
        }
      });
      String expected = "Basic " + Base64.getEncoder()
          .encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
      server.createContext("/hook", exchange -> {
        exchange.getRequestBody().readAllBytes();
        try {
          clients.add(((javax.net.ssl.SSLSession) ((com.sun.net.httpserver.HttpsExchange) exchange).getSSLSession())
              .getPeerPrincipal().getName());
        } catch (SSLPeerUnverifiedException e) {
          clients.add("none");
        }
        int status = expected.equals(exchange.getRequestHeaders().getFirst("Authorization")) ? 200 : 401;
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
      });
      server.start();
    }

    String uri() {
      return "https://localhost:" + server.getAddress().getPort() + "/hook";
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  private static Map<String, String> properties(Receiver receiver, String trustStore) throws Exception {
    Path passwordFile = directory.resolve("webhook-password");
    Files.writeString(passwordFile, PASSWORD + "\n");
    Map<String, String> properties = new HashMap<>();
    properties.put("endpoint.orders", receiver.uri());
    properties.put("auth.orders.username", USER);
    properties.put("auth.orders.password-file", passwordFile.toString());
    properties.put("tls.trust-store", certificates.file(trustStore).toString());
    properties.put("tls.certificate", certificates.file("client.pem").toString());
    properties.put("tls.key", certificates.file("client-key.pem").toString());
    return properties;
  }

  private static DeliveryOutcome deliver(HttpTransport transport) throws Exception {
    Message message = Message.builder().withDestination("orders").withPayload("{\"order\":1}")
        .withContentType("application/json").build();
    return transport.deliver(message).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void assertOutage(DeliveryOutcome outcome, String expectedCause) {
    assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class, failure -> {
      assertThat(failure.transportUnavailable()).as("classified as an outage: " + failure.reason()).isTrue();
      assertThat(failure.reason()).containsIgnoringCase(expectedCause).doesNotContain(PASSWORD);
    });
  }

  @Test
  void delivers_with_a_client_certificate_and_basic_auth_read_from_a_file() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(false));
        HttpTransport transport = HttpTransport.fromProperties(properties(receiver, "ca.pem"))) {
      assertThat(deliver(transport)).isEqualTo(DeliveryOutcome.delivered());
      assertThat(receiver.clients).containsExactly("CN=outbox4j-client");
      assertThat(transport.toString()).doesNotContain(PASSWORD);
    }
  }

  @Test
  void trust_and_client_certificate_may_come_from_pkcs12_files() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(false))) {
      Map<String, String> properties = properties(receiver, "ca.p12");
      properties.put("tls.trust-store-password", TestCertificates.PKCS12_PASSWORD);
      properties.remove("tls.certificate");
      properties.remove("tls.key");
      properties.put("tls.key-store", certificates.file("client.p12").toString());
      properties.put("tls.key-store-password", TestCertificates.PKCS12_PASSWORD);
      try (HttpTransport transport = HttpTransport.fromProperties(properties)) {
        assertThat(deliver(transport)).isEqualTo(DeliveryOutcome.delivered());
      }
    }
  }

  @Test
  void a_pkcs12_trust_store_without_its_password_or_a_missing_file_stops_the_build_naming_it() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(false))) {
      Map<String, String> noPassword = properties(receiver, "ca.p12");
      assertThatThrownBy(() -> HttpTransport.fromProperties(noPassword))
          .hasMessageContaining("ca.p12").hasMessageContaining("tls.trust-store-password");
      Map<String, String> missing = properties(receiver, "ca.pem");
      missing.put("tls.key", directory.resolve("no-such-key.pem").toString());
      assertThatThrownBy(() -> HttpTransport.fromProperties(missing))
          .hasMessageContaining("no-such-key.pem").hasMessageContaining("cannot be read");
    }
  }

  @Test
  void a_server_certificate_from_another_ca_is_an_outage() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(false));
        HttpTransport transport = HttpTransport.fromProperties(properties(receiver, "other-ca.pem"))) {
      assertOutage(deliver(transport), "SSLHandshakeException");
      assertThat(receiver.clients).isEmpty();
    }
  }

  @Test
  void an_expired_server_certificate_is_an_outage() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(true));
        HttpTransport transport = HttpTransport.fromProperties(properties(receiver, "ca.pem"))) {
      assertOutage(deliver(transport), "SSLHandshakeException");
      assertThat(receiver.clients).isEmpty();
    }
  }

  @Test
  void without_a_client_certificate_the_receiver_refuses_the_connection_as_an_outage() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(false))) {
      Map<String, String> properties = properties(receiver, "ca.pem");
      properties.remove("tls.certificate");
      properties.remove("tls.key");
      try (HttpTransport transport = HttpTransport.fromProperties(properties)) {
        assertOutage(deliver(transport), "connection");
        assertThat(receiver.clients).isEmpty();
      }
    }
  }

  @Test
  void a_wrong_password_is_an_outage_and_the_password_appears_nowhere() throws Exception {
    try (Receiver receiver = new Receiver(certificates.serverContext(false))) {
      Map<String, String> properties = properties(receiver, "ca.pem");
      properties.remove("auth.orders.password-file");
      properties.put("auth.orders.password", "not-the-" + PASSWORD);
      try (HttpTransport transport = HttpTransport.fromProperties(properties)) {
        DeliveryOutcome outcome = deliver(transport);
        assertOutage(outcome, "HTTP 401");
        assertThat(((DeliveryOutcome.Retryable) outcome).reason()).doesNotContain("not-the-");
      }
    }
  }
}
