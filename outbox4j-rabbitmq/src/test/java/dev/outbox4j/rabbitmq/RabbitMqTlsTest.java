package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.testkit.TestCertificates;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RabbitMQ transport against a second RabbitMQ node the test starts with a TLS listener only
 * ({@link TlsRabbitNode}), with certificates from a CA the test makes: delivered over TLS with a user and password
 * (read from a file) and with SASL EXTERNAL (the client certificate); a server certificate of another CA, an expired
 * one (a TLS listener in the test: a node has one certificate) and a wrong password each fail as an outage, naming no
 * secret.
 */
class RabbitMqTlsTest {
  @TempDir
  static Path directory;
  private static TestCertificates certificates;
  private static TlsRabbitNode node;

  @BeforeAll
  static void startNode() throws Exception {
    certificates = TestCertificates.createIn(directory.resolve("certs"));
    node = new TlsRabbitNode(certificates);
  }

  @AfterAll
  static void stopNode() throws Exception {
    if (node != null) {
      node.close();
    }
  }

  private static Map<String, String> properties(int port, String trustStore) throws IOException {
    Path passwordFile = directory.resolve("rabbit-password");
    Files.writeString(passwordFile, TlsRabbitNode.PASSWORD + "\n");
    Map<String, String> properties = new HashMap<>();
    properties.put("host", "localhost");
    properties.put("port", Integer.toString(port));
    properties.put("username", TlsRabbitNode.USER);
    properties.put("password-file", passwordFile.toString());
    properties.put("tls.trust-store", certificates.file(trustStore).toString());
    properties.put("connection-timeout", "3s");
    return properties;
  }

  /** A durable-for-the-test exchange bound to a queue on the TLS node, read back with basic.get. */
  private static String declareQueue(Channel channel, String name) throws IOException {
    channel.exchangeDeclare(name, BuiltinExchangeType.DIRECT, false, true, null);
    channel.queueDeclare(name, false, false, true, null);
    channel.queueBind(name, name, "orders");
    return name;
  }

  private static Connection adminConnection() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("localhost");
    factory.setPort(node.port);
    factory.setUsername(TlsRabbitNode.USER);
    factory.setPassword(TlsRabbitNode.PASSWORD);
    factory.useSslProtocol(TlsSettings.builder().withTrustStore(certificates.file("ca.pem"), null).build()
        .sslContext());
    return factory.newConnection("outbox4j-tls-test");
  }

  private static DeliveryOutcome deliver(RabbitMqTransport transport, String exchange) throws Exception {
    Message message = Message.builder().withDestination(exchange + "/orders").withPayload("{\"order\":1}")
        .withContentType("application/json").build();
    return transport.deliver(message).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void assertOutage(DeliveryOutcome outcome, String expectedCause) {
    assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class, failure -> {
      assertThat(failure.transportUnavailable()).as("classified as an outage: " + failure.reason()).isTrue();
      assertThat(failure.reason()).containsIgnoringCase(expectedCause).doesNotContain(TlsRabbitNode.PASSWORD);
    });
  }

  private static void assertArrived(Channel channel, String queue) throws IOException {
    GetResponse response = channel.basicGet(queue, true);
    assertThat(response).as("a message in " + queue).isNotNull();
    assertThat(new String(response.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":1}");
  }

  @Test
  void delivers_over_tls_with_a_user_and_a_password_read_from_a_file() throws Exception {
    try (Connection admin = adminConnection(); Channel channel = admin.createChannel();
        RabbitMqTransport transport = RabbitMqTransport.fromProperties(properties(node.port, "ca.pem"))) {
      String queue = declareQueue(channel, "tls-plain");

      assertThat(deliver(transport, queue)).isEqualTo(DeliveryOutcome.delivered());
      assertArrived(channel, queue);
      assertThat(transport.toString()).doesNotContain(TlsRabbitNode.PASSWORD);
    }
  }

  @Test
  void delivers_with_sasl_external_authenticated_by_the_client_certificate() throws Exception {
    Map<String, String> properties = properties(node.port, "ca.pem");
    properties.remove("username");
    properties.remove("password-file");
    properties.put("auth-mechanism", "EXTERNAL");
    properties.put("tls.certificate", certificates.file("client.pem").toString());
    properties.put("tls.key", certificates.file("client-key.pem").toString());
    try (Connection admin = adminConnection(); Channel channel = admin.createChannel();
        RabbitMqTransport transport = RabbitMqTransport.fromProperties(properties)) {
      String queue = declareQueue(channel, "tls-external");

      assertThat(deliver(transport, queue)).isEqualTo(DeliveryOutcome.delivered());
      assertArrived(channel, queue);
    }
  }

  @Test
  void a_server_certificate_from_another_ca_is_an_outage() throws Exception {
    try (RabbitMqTransport transport = RabbitMqTransport.fromProperties(properties(node.port, "other-ca.pem"))) {
      assertOutage(deliver(transport, "tls-plain"), "SSLHandshakeException");
    }
  }

  @Test
  void an_expired_server_certificate_is_an_outage() throws Exception {
    SSLServerSocket listener = (SSLServerSocket) certificates.serverContext(true).getServerSocketFactory()
        .createServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!listener.isClosed()) {
        try (SSLSocket socket = (SSLSocket) listener.accept()) {
          socket.startHandshake();
        } catch (IOException e) {
          // the client refuses the certificate: expected
        }
      }
    }, "expired-certificate-listener");
    acceptor.setDaemon(true);
    acceptor.start();
    try (listener;
        RabbitMqTransport transport = RabbitMqTransport.fromProperties(properties(listener.getLocalPort(),
            "ca.pem"))) {
      assertOutage(deliver(transport, "tls-plain"), "SSLHandshakeException");
    }
  }

  @Test
  void a_wrong_password_is_an_outage_and_the_password_appears_nowhere() throws Exception {
    Map<String, String> properties = properties(node.port, "ca.pem");
    properties.remove("password-file");
    properties.put("password", "not-the-" + TlsRabbitNode.PASSWORD);
    try (RabbitMqTransport transport = RabbitMqTransport.fromProperties(properties)) {
      DeliveryOutcome outcome = deliver(transport, "tls-plain");
      assertOutage(outcome, "ACCESS_REFUSED");
      assertThat(((DeliveryOutcome.Retryable) outcome).reason()).doesNotContain("not-the-");
    }
  }
}
