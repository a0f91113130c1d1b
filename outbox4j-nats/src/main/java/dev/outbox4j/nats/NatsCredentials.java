package dev.outbox4j.nats;

import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Puts the NATS transport's key-based credentials (an NKEY seed, the content of a {@code .creds} file) on the client's
 * options ({@link NatsTls} puts its TLS context there). User/password and token stay in the transport, as the client
 * takes them directly.
 *
 * <p>Stateless.
 */
final class NatsCredentials {
  private NatsCredentials() {}

  /**
   * @param nkeySeed an NKEY user seed, or {@code null}
   * @param credentials the content of a {@code .creds} file, or {@code null}
   */
  static void apply(@Nullable String nkeySeed, @Nullable String credentials, Options.Builder options) {
    if (nkeySeed != null) {
      options.authHandler(Nats.staticCredentials(null, nkeySeed.toCharArray()));
    }
    if (credentials != null) {
      options.authHandler(Nats.staticCredentials(credentials.getBytes(StandardCharsets.UTF_8)));
    }
  }
}
