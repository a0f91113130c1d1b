package dev.outbox4j.nats;

import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the last error the client reported while connecting, so a failed connect can say why (a TLS handshake
 * refused, an expired certificate, an authorization violation) instead of jnats's bare "unable to connect". The
 * client reports these through its error listener only; this one replaces the client's default, which would print
 * them to the console.
 *
 * <p>Thread-safe: the last report wins.
 */
final class NatsConnectErrors implements ErrorListener {
  private volatile @Nullable String last;

  @Override
  public void errorOccurred(Connection connection, String error) {
    last = "server said: " + error;
  }

  @Override
  public void exceptionOccurred(Connection connection, Exception exception) {
    Throwable root = exception;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    last = root == exception ? exception.toString() : exception.getClass().getSimpleName() + " caused by " + root;
  }

  /** Forgets what an earlier connect reported. */
  void clear() {
    last = null;
  }

  /** @return {@code ""}, or {@code " (last error: ...)"} with what the client reported since {@link #clear()} */
  String describe() {
    String reported = last;
    return reported == null ? "" : " (last error: " + reported + ")";
  }
}
