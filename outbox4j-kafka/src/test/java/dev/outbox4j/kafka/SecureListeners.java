package dev.outbox4j.kafka;

import dev.outbox4j.testkit.TestCertificates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * The embedded broker's TLS listeners, with certificates from a CA made at start ({@link TestCertificates}):
 * <ul>
 *   <li>{@code SECURE} ({@code SASL_SSL}): the valid server certificate; SASL {@code SCRAM-SHA-256} (user
 *       {@value #USER}, created through the Admin API once the broker runs) and {@code PLAIN} (the same user, from the
 *       listener's JAAS line);
 *   <li>{@code EXPIRED} ({@code SSL}): a server certificate that expired yesterday.
 * </ul>
 */
final class SecureListeners {
  static final String USER = "outbox";
  static final String PASSWORD = "k4fka-Secret-pw";

  private final TestCertificates certificates;
  private final int securePort;
  private final int expiredPort;

  SecureListeners(Path directory, int securePort, int expiredPort) {
    this.certificates = TestCertificates.createIn(directory);
    this.securePort = securePort;
    this.expiredPort = expiredPort;
  }

  TestCertificates certificates() {
    return certificates;
  }

  /** @return {@code host:port} of the SASL_SSL listener */
  String secureBootstrapServers() {
    return "localhost:" + securePort;
  }

  /** @return {@code host:port} of the listener with the expired certificate */
  String expiredBootstrapServers() {
    return "localhost:" + expiredPort;
  }

  String listeners() {
    return "SECURE://localhost:" + securePort + ",EXPIRED://localhost:" + expiredPort;
  }

  String protocolMap() {
    return "SECURE:SASL_SSL,EXPIRED:SSL";
  }

  Map<String, String> brokerSettings() {
    Map<String, String> settings = new HashMap<>();
    settings.put("listener.name.secure.sasl.enabled.mechanisms", "SCRAM-SHA-256,PLAIN");
    settings.put("listener.name.secure.scram-sha-256.sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    settings.put("listener.name.secure.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + USER + "=\"" + PASSWORD + "\";");
    keyStore(settings, "secure", "server.pem", "server-key.pem");
    keyStore(settings, "expired", "expired.pem", "expired-key.pem");
    return settings;
  }

  private void keyStore(Map<String, String> settings, String listener, String certificate, String key) {
    String prefix = "listener.name." + listener + ".";
    settings.put(prefix + "ssl.keystore.type", "PEM");
    settings.put(prefix + "ssl.keystore.certificate.chain", read(certificate));
    settings.put(prefix + "ssl.keystore.key", read(key));
  }

  private String read(String name) {
    try {
      return Files.readString(certificates.file(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void createUsers(Admin admin) throws Exception {
    admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), PASSWORD))).all().get(30, TimeUnit.SECONDS);
  }
}
