package dev.outbox4j.kafka;

import dev.outbox4j.spi.SecretFile;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.spi.TransportProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the transport-neutral security keys of the Kafka transport's properties form into producer settings, so a
 * Kafka user configures TLS and SASL with the same {@code tls.*} keys as every other transport and never writes a
 * JAAS line:
 * <ul>
 *   <li>{@code tls.*} ({@link TlsSettings#fromProperties}) → {@code security.protocol=SSL} and the {@code ssl.*}
 *       trust store, key store and {@code ssl.endpoint.identification.algorithm} ({@code https}, or empty with
 *       {@code tls.hostname-verification=false}). PEM files are handed to Kafka as PEM stores;
 *   <li>{@code sasl.mechanism} ({@code PLAIN}, {@code SCRAM-SHA-256}, {@code SCRAM-SHA-512}) with
 *       {@code sasl.username} and {@code sasl.password} → {@code sasl.mechanism}, a generated
 *       {@code sasl.jaas.config}, and {@code security.protocol} {@code SASL_SSL} (with {@code tls.*}) or
 *       {@code SASL_PLAINTEXT}.
 * </ul>
 * Any key of the properties form, these and {@code kafka.*} included, can be given as {@code <key>-file}. The
 * generated settings that hold secrets ({@code sasl.jaas.config}, {@code ssl.keystore.key}, store passwords) are
 * password-typed in Kafka's configuration, so the producer logs them as {@code [hidden]}.
 *
 * <p>Stateless.
 */
final class KafkaSecurity {
  private static final String FILE_SUFFIX = "-file";
  /** The keys this class reads; any other {@code sasl.*} key stays unknown (Kafka's own go under {@code kafka.}). */
  private static final Set<String> KEYS = Set.of("tls.enabled", "tls.trust-store", "tls.trust-store-password",
      "tls.key-store", "tls.key-store-password", "tls.certificate", "tls.key", "tls.hostname-verification",
      "sasl.mechanism", "sasl.username", "sasl.password");

  private KafkaSecurity() {}

  /**
   * Replaces every {@code <key>-file} by {@code <key>} with the file's content.
   *
   * @throws IllegalArgumentException naming the key when both forms are given or the file cannot be read
   */
  static Map<String, String> resolveFiles(Map<String, String> properties) {
    Map<String, String> resolved = new LinkedHashMap<>();
    properties.forEach((key, value) -> {
      if (key.endsWith(FILE_SUFFIX) && key.length() > FILE_SUFFIX.length()) {
        String base = key.substring(0, key.length() - FILE_SUFFIX.length());
        if (properties.containsKey(base)) {
          throw new IllegalArgumentException("kafka properties '" + base + "' and '" + key + "' exclude each other");
        }
        resolved.put(base, SecretFile.read(value.trim(), "kafka property '" + key + "'"));
      } else {
        resolved.put(key, value);
      }
    });
    return resolved;
  }

  /**
   * Takes the security keys out of {@code properties} (which keeps the rest) and returns the producer settings they
   * stand for.
   *
   * @throws IllegalArgumentException naming the key that is incomplete or malformed
   */
  static Map<String, String> producerSettings(Map<String, String> properties) {
    Map<String, String> security = new LinkedHashMap<>();
    properties.forEach((key, value) -> {
      if (KEYS.contains(key)) {
        security.put(key, value);
      }
    });
    security.keySet().forEach(properties::remove);
    TransportProperties props = TransportProperties.of("kafka", security);
    Map<String, String> settings = new LinkedHashMap<>();
    Optional<TlsSettings> tls = TlsSettings.fromProperties(props);
    tls.ifPresent(ignored -> settings.putAll(tlsSettings(props)));
    Optional<String> mechanism = props.string("sasl.mechanism").map(m -> m.toUpperCase(Locale.ROOT));
    Optional<String> user = props.string("sasl.username");
    Optional<String> password = props.string("sasl.password");
    if (mechanism.isPresent() || user.isPresent() || password.isPresent()) {
      if (mechanism.isEmpty() || user.isEmpty() || password.isEmpty()) {
        throw new IllegalArgumentException(
            "kafka properties 'sasl.mechanism', 'sasl.username' and 'sasl.password' go together");
      }
      String module = switch (mechanism.get()) {
        case "PLAIN" -> "org.apache.kafka.common.security.plain.PlainLoginModule";
        case "SCRAM-SHA-256", "SCRAM-SHA-512" -> "org.apache.kafka.common.security.scram.ScramLoginModule";
        default -> throw new IllegalArgumentException(
            "kafka property 'sasl.mechanism' must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, was '"
                + mechanism.get() + "'");
      };
      settings.put("sasl.mechanism", mechanism.get());
      settings.put("sasl.jaas.config", module + " required username=\"" + quoted(user.get()) + "\" password=\""
          + quoted(password.get()) + "\";");
      settings.put("security.protocol", tls.isPresent() ? "SASL_SSL" : "SASL_PLAINTEXT");
    }
    return settings;
  }

  private static Map<String, String> tlsSettings(TransportProperties props) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("security.protocol", "SSL");
    props.string("tls.trust-store").ifPresent(file -> {
      settings.put("ssl.truststore.location", file);
      settings.put("ssl.truststore.type", isPem(file, "tls.trust-store") ? "PEM" : "PKCS12");
      props.string("tls.trust-store-password").ifPresent(p -> settings.put("ssl.truststore.password", p));
    });
    props.string("tls.key-store").ifPresent(file -> {
      settings.put("ssl.keystore.location", file);
      settings.put("ssl.keystore.type", "PKCS12");
      props.string("tls.key-store-password").ifPresent(p -> {
        settings.put("ssl.keystore.password", p);
        settings.put("ssl.key.password", p);
      });
    });
    props.string("tls.certificate").ifPresent(file -> {
      settings.put("ssl.keystore.type", "PEM");
      settings.put("ssl.keystore.certificate.chain", read(file, "tls.certificate"));
      settings.put("ssl.keystore.key", read(props.requiredString("tls.key"), "tls.key"));
    });
    boolean verify = props.bool("tls.hostname-verification").orElse(true);
    settings.put("ssl.endpoint.identification.algorithm", verify ? "https" : "");
    return settings;
  }

  private static boolean isPem(String file, String key) {
    return read(file, key).contains("-----BEGIN ");
  }

  private static String read(String file, String key) {
    try {
      return Files.readString(Path.of(file), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new IllegalArgumentException("kafka property '" + key + "': cannot read " + file, e);
    }
  }

  private static String quoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
