package dev.outbox4j.nats;

import dev.outbox4j.spi.TlsSettings;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Puts the NATS transport's TLS settings and its key-based credentials (an NKEY seed, a {@code .creds} file) on the
 * client's options. User/password and token stay in the transport, as the client takes them directly.
 *
 * <p>Stateless.
 */
final class NatsCredentials {
  private NatsCredentials() {}

  /**
   * @throws IllegalArgumentException naming the file when the credentials file is missing, or a TLS file cannot be
   *     read
   */
  static void apply(@Nullable TlsSettings tls, @Nullable String nkeySeed, @Nullable Path credentialsFile,
      Options.Builder options) {
    if (tls != null) {
      options.sslContext(tls.sslContext());
    }
    if (nkeySeed != null) {
      options.authHandler(Nats.staticCredentials(null, nkeySeed.toCharArray()));
    }
    if (credentialsFile != null) {
      if (!Files.isReadable(credentialsFile)) {
        throw new IllegalArgumentException("NATS credentials file " + credentialsFile + " cannot be read");
      }
      options.authHandler(Nats.credentials(credentialsFile.toString()));
    }
  }
}
