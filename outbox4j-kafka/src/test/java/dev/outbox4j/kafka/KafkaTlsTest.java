package dev.outbox4j.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kafka transport against the embedded broker's TLS listeners ({@link SecureListeners}), configured only with the
 * transport-neutral {@code tls.*} and {@code sasl.*} keys: SASL/SCRAM and SASL/PLAIN over TLS deliver; a server
 * certificate of another CA, an expired one and a wrong password each fail as an outage, naming no secret.
 */
class KafkaTlsTest {
  private final EmbeddedKafka kafka = EmbeddedKafka.shared();
  private final SecureListeners secure = kafka.secure();

  @TempDir
  Path directory;

  private Map<String, String> properties(String bootstrap, String trustStore, String mechanism) throws Exception {
    Path passwordFile = directory.resolve("kafka-password");
    Files.writeString(passwordFile, SecureListeners.PASSWORD + "\n");
    Map<String, String> properties = new HashMap<>();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("tls.trust-store", secure.certificates().file(trustStore).toString());
    properties.put("sasl.mechanism", mechanism);
    properties.put("sasl.username", SecureListeners.USER);
    properties.put("sasl.password-file", passwordFile.toString());
    properties.put("max.block", "3s");
    properties.put("request.timeout", "3s");
    properties.put("delivery.timeout", "6s");
    return properties;
  }

  private static DeliveryOutcome deliver(KafkaTransport transport, String topic) throws Exception {
    Message message = Message.builder().withDestination(topic).withPayload("{\"order\":1}")
        .withContentType("application/json").build();
    return transport.deliver(message).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static void assertOutage(DeliveryOutcome outcome, String expectedCause) {
    assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class, failure -> {
      assertThat(failure.transportUnavailable()).as("classified as an outage: " + failure.reason()).isTrue();
      assertThat(failure.reason()).containsIgnoringCase(expectedCause).doesNotContain(SecureListeners.PASSWORD);
    });
  }

  @ParameterizedTest(name = "SASL {0} over TLS")
  @ValueSource(strings = {"SCRAM-SHA-256", "PLAIN"})
  void delivers_with_sasl_over_tls_and_the_password_read_from_a_file(String mechanism) throws Exception {
    String topic = "tls-" + UUID.randomUUID();
    kafka.createTopic(topic, 1);
    try (KafkaTransport transport = KafkaTransport.fromProperties(
            properties(secure.secureBootstrapServers(), "ca.pem", mechanism));
        KafkaConsumer<byte[], byte[]> consumer = kafka.consumerFromStart(topic)) {
      assertThat(deliver(transport, topic)).isEqualTo(DeliveryOutcome.delivered());
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofSeconds(10));
      assertThat(records.count()).isEqualTo(1);
      assertThat(transport.toString()).doesNotContain(SecureListeners.PASSWORD);
    } finally {
      kafka.deleteTopic(topic);
    }
  }

  @Test
  void a_server_certificate_from_another_ca_is_an_outage() throws Exception {
    try (KafkaTransport transport = KafkaTransport.fromProperties(
        properties(secure.secureBootstrapServers(), "other-ca.pem", "SCRAM-SHA-256"))) {
      assertOutage(deliver(transport, "tls-any"), "SslAuthenticationException");
    }
  }

  @Test
  void an_expired_server_certificate_is_an_outage() throws Exception {
    Map<String, String> properties = properties(secure.expiredBootstrapServers(), "ca.pem", "SCRAM-SHA-256");
    properties.remove("sasl.mechanism");
    properties.remove("sasl.username");
    properties.remove("sasl.password-file");
    try (KafkaTransport transport = KafkaTransport.fromProperties(properties)) {
      assertOutage(deliver(transport, "tls-any"), "SslAuthenticationException");
    }
  }

  @Test
  void a_wrong_password_is_an_outage_and_the_password_appears_nowhere() throws Exception {
    Map<String, String> properties = properties(secure.secureBootstrapServers(), "ca.pem", "SCRAM-SHA-256");
    properties.remove("sasl.password-file");
    properties.put("sasl.password", "not-the-" + SecureListeners.PASSWORD);
    try (KafkaTransport transport = KafkaTransport.fromProperties(properties)) {
      DeliveryOutcome outcome = deliver(transport, "tls-any");
      assertOutage(outcome, "SaslAuthenticationException");
      assertThat(((DeliveryOutcome.Retryable) outcome).reason()).doesNotContain("not-the-");
    }
  }
}
