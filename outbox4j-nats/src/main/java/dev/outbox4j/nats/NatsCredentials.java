package dev.outbox4j.nats;

import dev.outbox4j.spi.TlsSettings;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Puts the NATS transport's TLS settings and its key-based credentials (an NKEY seed, the content of a {@code .creds} file) on the
 * client's options. User/password and token stay in the transport, as the client takes them directly.
 *
 * <p>Stateless.
 */
final class NatsCredentials {
  private NatsCredentials() {}

  /**
   * @param credentials the content of a {@code .creds} file, or {@code null}
   * @throws IllegalArgumentException when a TLS file cannot be read
   */
  static void apply(@Nullable TlsSettings tls, @Nullable String nkeySeed, @Nullable String credentials,
      Options.Builder options) {
    if (tls != null) {
      options.sslContext(tls.sslContext());
    }
    if (nkeySeed != null) {
      options.authHandler(Nats.staticCredentials(null, nkeySeed.toCharArray()));
    }
    if (credentials != null) {
      options.authHandler(Nats.staticCredentials(credentials.getBytes(StandardCharsets.UTF_8)));
    }
  }
}
