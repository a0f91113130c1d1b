package dev.outbox4j.rabbitmq;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultSaslConfig;
import dev.outbox4j.spi.TlsSettings;
import org.jspecify.annotations.Nullable;

/**
 * Puts the RabbitMQ transport's TLS settings and authentication mechanism on the client's connection factory.
 *
 * <p>An {@code amqps://} URI without TLS settings gets the JVM's trusted authorities with hostname verification: the
 * client's own default for such a URI would trust any certificate.
 *
 * <p>Stateless.
 */
final class RabbitMqSecurity {
  private RabbitMqSecurity() {}

  /**
   * @param tls the TLS settings, or {@code null}
   * @param external whether to authenticate with the client certificate (SASL {@code EXTERNAL}) instead of a user
   *     name and password
   * @throws IllegalArgumentException when EXTERNAL is asked for without a client certificate, or a TLS file cannot be
   *     read
   */
  static void apply(ConnectionFactory factory, @Nullable TlsSettings tls, boolean external) {
    TlsSettings effective = tls;
    if (effective == null && factory.isSSL()) {
      effective = TlsSettings.builder().build();
    }
    if (external && (effective == null || !effective.presentsClientCertificate())) {
      throw new IllegalArgumentException(
          "auth-mechanism EXTERNAL needs a client certificate (tls.key-store, or tls.certificate and tls.key)");
    }
    if (effective != null) {
      factory.useSslProtocol(effective.sslContext());
      if (effective.hostnameVerification()) {
        factory.enableHostnameVerification();
      }
    }
    if (external) {
      factory.setSaslConfig(DefaultSaslConfig.EXTERNAL);
    }
  }
}
