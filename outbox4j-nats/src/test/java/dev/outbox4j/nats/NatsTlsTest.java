package dev.outbox4j.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.testkit.OutageWatch;
import dev.outbox4j.testkit.TestCertificates;
import io.nats.client.Connection;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NATS transport against a second, TLS-only NATS server started by the test (user and password required), with
 * certificates made by the test: a delivery succeeds over TLS; a wrong CA, an expired server certificate and a wrong
 * password each fail as an outage (never a permanent failure) and name no secret. What a server URL alone asks for: a
 * {@code tls://} URL without any {@code tls.*} key verifies the host name against the JVM's default trust store (here
 * pointed at the test's authority), and {@code opentls://}, which trusts every certificate, is refused unless
 * {@code tls.insecure-trust-all} says so, with a warning at start.
 */
class NatsTlsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final List<String> TRUST_PROPERTIES = List.of("javax.net.ssl.trustStore",
      "javax.net.ssl.trustStorePassword", "javax.net.ssl.trustStoreType");

  @TempDir
  static Path directory;
  private static TestCertificates certificates;

  @BeforeAll
  static void makeCertificates() {
    certificates = TestCertificates.createIn(directory.resolve("certs"));
  }

  private TlsNatsServer server(boolean expired) throws Exception {
    return expired
        ? new TlsNatsServer(directory, certificates.file("expired.pem"), certificates.file("expired-key.pem"))
        : new TlsNatsServer(directory, certificates.file("server.pem"), certificates.file("server-key.pem"));
  }

  private static Map<String, String> properties(TlsNatsServer server, String trustStore) throws Exception {
    Path passwordFile = directory.resolve("nats-password");
    Files.writeString(passwordFile, TlsNatsServer.PASSWORD + "\n");
    Map<String, String> properties = new HashMap<>();
    properties.put("servers", server.url());
    properties.put("username", TlsNatsServer.USER);
    properties.put("password-file", passwordFile.toString());
    properties.put("tls.trust-store", certificates.file(trustStore).toString());
    properties.put("connection-timeout", "3s");
    properties.put("ack-timeout", "6s");
    return properties;
  }

  private static DeliveryOutcome deliver(NatsTransport transport, String subject) throws Exception {
    Message message = Message.builder().withDestination(subject).withPayload("{\"order\":1}")
        .withContentType("application/json").build();
    return transport.deliver(message).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static void assertOutageNamingNoSecret(DeliveryOutcome outcome, String expectedCause) {
    assertThat(outcome).isInstanceOfSatisfying(DeliveryOutcome.Retryable.class, failure -> {
      assertThat(failure.transportUnavailable()).as("classified as an outage: " + failure.reason()).isTrue();
      assertThat(failure.reason()).containsIgnoringCase(expectedCause).doesNotContain(TlsNatsServer.PASSWORD);
    });
  }

  @Test
  void delivers_over_tls_with_a_user_and_a_password_read_from_a_file() throws Exception {
    try (TlsNatsServer server = server(false)) {
      Options admin = Options.builder().server(server.url()).userInfo(TlsNatsServer.USER, TlsNatsServer.PASSWORD)
          .sslContext(TlsSettings.builder().withTrustStore(certificates.file("ca.pem"), null).build().sslContext())
          .build();
      try (Connection connection = Nats.connect(admin);
          NatsTransport transport = NatsTransport.fromProperties(properties(server, "ca.pem"))) {
        connection.jetStreamManagement().addStream(StreamConfiguration.builder().name("TLS_ORDERS")
            .subjects("tls.orders").storageType(StorageType.Memory).build());

        assertThat(deliver(transport, "tls.orders")).isEqualTo(DeliveryOutcome.delivered());
        assertThat(connection.jetStreamManagement().getStreamInfo("TLS_ORDERS").getStreamState().getMsgCount())
            .isEqualTo(1);
        assertThat(transport.toString()).doesNotContain(TlsNatsServer.PASSWORD);
      }
    }
  }

  @Test
  void authenticates_with_an_nkey_seed_or_a_token_read_from_files() throws Exception {
    NKey user = NKey.createUser(new SecureRandom());
    Path seedFile = directory.resolve("nkey.seed");
    Files.writeString(seedFile, new String(user.getSeed()) + "\n");
    try (TlsNatsServer server = new TlsNatsServer(directory, certificates.file("server.pem"),
        certificates.file("server-key.pem"), "users: [ { nkey: \"" + new String(user.getPublicKey()) + "\" } ]")) {
      Map<String, String> properties = properties(server, "ca.pem");
      properties.remove("username");
      properties.remove("password-file");
      properties.put("nkey-seed-file", seedFile.toString());
      try (NatsTransport transport = NatsTransport.fromProperties(properties)) {
        assertThat(deliver(transport, "nkey.orders")).as("no stream captures the subject, so the server answered")
            .isInstanceOf(DeliveryOutcome.Permanent.class);
      }
    }
    Path tokenFile = directory.resolve("token");
    Files.writeString(tokenFile, "t0ken-" + TlsNatsServer.PASSWORD);
    try (TlsNatsServer server = new TlsNatsServer(directory, certificates.file("server.pem"),
        certificates.file("server-key.pem"), "token: \"t0ken-" + TlsNatsServer.PASSWORD + "\"")) {
      Map<String, String> properties = properties(server, "ca.pem");
      properties.remove("username");
      properties.remove("password-file");
      properties.put("token-file", tokenFile.toString());
      try (NatsTransport transport = NatsTransport.fromProperties(properties)) {
        assertThat(deliver(transport, "token.orders")).isInstanceOf(DeliveryOutcome.Permanent.class);
      }
      properties.put("token-file", seedFile.toString());
      try (NatsTransport transport = NatsTransport.fromProperties(properties)) {
        assertOutageNamingNoSecret(deliver(transport, "token.orders"), "Authorization Violation");
      }
    }
  }

  @Test
  void a_certificate_for_another_host_is_refused_unless_hostname_verification_is_switched_off() throws Exception {
    // jnats does not check host names on its own: the TLS settings' context makes it
    try (TlsNatsServer server = new TlsNatsServer(directory, certificates.file("elsewhere.pem"),
        certificates.file("elsewhere-key.pem"))) {
      try (NatsTransport transport = NatsTransport.fromProperties(properties(server, "ca.pem"))) {
        assertOutageNamingNoSecret(deliver(transport, "tls.orders"), "No subject alternative names matching");
      }
      Map<String, String> properties = properties(server, "ca.pem");
      properties.put("tls.hostname-verification", "false");
      try (NatsTransport transport = NatsTransport.fromProperties(properties)) {
        assertThat(deliver(transport, "tls.orders")).as("connected: no stream captures the subject")
            .isInstanceOf(DeliveryOutcome.Permanent.class);
      }
    }
  }

  @Test
  void a_relay_refused_by_the_server_pauses_past_its_whole_retry_budget_and_quarantines_nothing() throws Exception {
    try (TlsNatsServer server = server(false)) {
      Map<String, String> properties = properties(server, "ca.pem");
      properties.remove("password-file");
      properties.put("password", "not-the-" + TlsNatsServer.PASSWORD);
      InMemoryOutboxStore store = InMemoryOutboxStore.create();
      for (int i = 0; i < 20; i++) {
        store.enqueue(Message.builder().withDestination("tls.orders").withOrderingKey("key-" + (i % 4))
            .withPayload("{\"n\":" + i + "}").withContentType("application/json").build());
      }
      OutageWatch watch = new OutageWatch();
      Duration outage = OutageWatch.RETRY_BUDGET.multipliedBy(2);
      List<String> logged = new CopyOnWriteArrayList<>();
      Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record.getMessage() + (record.getThrown() == null ? "" : " " + record.getThrown()));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
      Logger.getLogger("").addHandler(capture);
      try (NatsTransport transport = NatsTransport.fromProperties(properties);
          Relay relay = Relay.builder(store, transport).withRetryPolicy(OutageWatch.shortRetryBudget())
              .withOutageBackoff(Duration.ofMillis(50), Duration.ofMillis(500)).onEvent(watch).build()) {
        relay.start();
        long start = System.nanoTime();
        await().atMost(outage.plus(Duration.ofMinutes(1))).until(() -> watch.postponed() > 0
            && Duration.ofNanos(System.nanoTime() - start).compareTo(outage) >= 0);

        assertThat(watch.quarantined()).as("quarantined during the refusal").isZero();
        assertThat(watch.failed()).as("attempts charged to entries").isZero();
        assertThat(store.quarantined(QuarantineQuery.first(100))).isEmpty();
      } finally {
        Logger.getLogger("").removeHandler(capture);
      }
      assertThat(logged).as("the relay logged the refusal").anyMatch(line -> line.contains("Authorization Violation"));
      assertThat(logged).noneMatch(line -> line.contains(TlsNatsServer.PASSWORD));
    }
  }

  @Test
  void a_server_certificate_from_another_ca_is_an_outage() throws Exception {
    try (TlsNatsServer server = server(false);
        NatsTransport transport = NatsTransport.fromProperties(properties(server, "other-ca.pem"))) {
      assertOutageNamingNoSecret(deliver(transport, "tls.orders"), "SunCertPathBuilderException");
    }
  }

  @Test
  void an_expired_server_certificate_is_an_outage() throws Exception {
    try (TlsNatsServer server = server(true);
        NatsTransport transport = NatsTransport.fromProperties(properties(server, "ca.pem"))) {
      assertOutageNamingNoSecret(deliver(transport, "tls.orders"), "CertificateExpiredException");
    }
  }

  @Test
  void a_wrong_password_is_an_outage_and_the_password_appears_nowhere() throws Exception {
    try (TlsNatsServer server = server(false)) {
      Map<String, String> properties = properties(server, "ca.pem");
      properties.remove("password-file");
      properties.put("password", "not-the-" + TlsNatsServer.PASSWORD);
      try (NatsTransport transport = NatsTransport.fromProperties(properties)) {
        DeliveryOutcome outcome = deliver(transport, "tls.orders");
        assertOutageNamingNoSecret(outcome, "Authorization Violation");
        assertThat(((DeliveryOutcome.Retryable) outcome).reason()).doesNotContain("not-the-");
      }
    }
  }

  private static Map<String, String> plainProperties(String url) {
    Map<String, String> properties = new HashMap<>();
    properties.put("servers", url);
    properties.put("username", TlsNatsServer.USER);
    properties.put("password", TlsNatsServer.PASSWORD);
    properties.put("connection-timeout", "3s");
    properties.put("ack-timeout", "6s");
    return properties;
  }

  private static DeliveryOutcome deliver(NatsTransport transport) throws Exception {
    return deliver(transport, "verify.orders");
  }

  private static TlsNatsServer server(String certificate) throws Exception {
    return new TlsNatsServer(directory, certificates.file(certificate + ".pem"),
        certificates.file(certificate + "-key.pem"));
  }

  @Test
  void a_tls_url_without_tls_settings_verifies_the_host_name_against_the_default_trust_store() throws Exception {
    Map<String, String> previous = new HashMap<>();
    TRUST_PROPERTIES.forEach(name -> previous.put(name, System.getProperty(name)));
    System.setProperty("javax.net.ssl.trustStore", certificates.file("ca.p12").toString());
    System.setProperty("javax.net.ssl.trustStorePassword", TestCertificates.PKCS12_PASSWORD);
    System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    try (TlsNatsServer elsewhere = server("elsewhere");
        TlsNatsServer matching = server("server");
        NatsTransport toElsewhere = NatsTransport.fromProperties(plainProperties(elsewhere.url()));
        NatsTransport toMatching = NatsTransport.fromProperties(plainProperties(matching.url()))) {
      assertThat(toElsewhere.tlsMode()).isEqualTo(NatsTransport.TlsMode.VERIFIED);

      assertThat(deliver(toElsewhere)).as("a certificate of the trusted authority for another host")
          .isInstanceOfSatisfying(DeliveryOutcome.Retryable.class, failure -> {
            assertThat(failure.transportUnavailable()).isTrue();
            assertThat(failure.reason()).contains("No subject alternative names matching");
          });
      assertThat(deliver(toMatching)).as("connected and answered: no stream captures the subject")
          .isInstanceOf(DeliveryOutcome.Permanent.class);
    } finally {
      previous.forEach((name, value) -> {
        if (value == null) {
          System.clearProperty(name);
        } else {
          System.setProperty(name, value);
        }
      });
    }
  }

  @Test
  void an_opentls_url_is_refused_naming_the_insecure_setting_and_allowed_with_a_warning_when_it_is_set()
      throws Exception {
    try (TlsNatsServer elsewhere = server("elsewhere")) {
      String url = "opentls://localhost:" + elsewhere.port;
      assertThatThrownBy(() -> NatsTransport.fromProperties(plainProperties(url)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls.insecure-trust-all")
          .hasMessageNotContaining(TlsNatsServer.PASSWORD);
      assertThatThrownBy(() -> NatsTransport.builder().withServer(url).build())
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withInsecureTrustAll");
      Map<String, String> both = plainProperties(elsewhere.url());
      both.put("tls.insecure-trust-all", "true");
      both.put("tls.trust-store", certificates.file("ca.pem").toString());
      assertThatThrownBy(() -> NatsTransport.fromProperties(both))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tls.insecure-trust-all");

      Map<String, String> insecure = plainProperties(url);
      insecure.put("tls.insecure-trust-all", "true");
      List<LogRecord> logged = new CopyOnWriteArrayList<>();
      Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
      Logger.getLogger("").addHandler(capture);
      try (NatsTransport transport = NatsTransport.fromProperties(insecure)) {
        assertThat(transport.tlsMode()).isEqualTo(NatsTransport.TlsMode.TRUSTS_EVERY_CERTIFICATE);
        assertThat(logged).anySatisfy(record -> {
          assertThat(record.getLevel()).isEqualTo(Level.WARNING);
          assertThat(record.getMessage()).contains("trusts every server certificate", "tls.insecure-trust-all");
        });
        assertThat(deliver(transport)).as("connected to a certificate for another host: no stream captures it")
            .isInstanceOf(DeliveryOutcome.Permanent.class);
      } finally {
        Logger.getLogger("").removeHandler(capture);
      }
    }
  }

  @Test
  void the_tls_mode_says_how_certificates_are_checked() {
    try (NatsTransport plain = NatsTransport.builder().withServer("nats://127.0.0.1:4222").build()) {
      assertThat(plain.tlsMode()).isEqualTo(NatsTransport.TlsMode.OFF);
    }
    Map<String, String> unverified = plainProperties("tls://127.0.0.1:4222");
    unverified.put("tls.hostname-verification", "false");
    try (NatsTransport transport = NatsTransport.fromProperties(unverified)) {
      assertThat(transport.tlsMode()).isEqualTo(NatsTransport.TlsMode.WITHOUT_HOSTNAME_VERIFICATION);
    }
    Map<String, String> verified = plainProperties("nats://127.0.0.1:4222");
    verified.put("tls.trust-store", certificates.file("ca.pem").toString());
    try (NatsTransport transport = NatsTransport.fromProperties(verified)) {
      assertThat(transport.tlsMode()).isEqualTo(NatsTransport.TlsMode.VERIFIED);
    }
  }
}
