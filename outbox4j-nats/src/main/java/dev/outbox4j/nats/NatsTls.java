package dev.outbox4j.nats;

import dev.outbox4j.spi.TlsSettings;
import io.nats.client.Options;
import io.nats.client.support.SSLUtils;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Decides how the NATS transport speaks TLS, from its server URLs and TLS settings, and puts the context on the
 * client's options.
 *
 * <h2>Why the transport always brings its own context</h2>
 * jnats checks no host name on its own, and given no context it makes one from the URL: for {@code tls://} the JVM's
 * default context (the certificate chain is checked, the host name is not), for {@code opentls://} one that trusts
 * every certificate. So a {@code tls://} URL without {@code tls.*} settings gets the transport's default settings
 * here (the JVM's trusted authorities, host name verified), and {@code opentls://} is refused unless
 * {@value #INSECURE_TRUST_ALL} says it is meant; then every certificate is trusted, and the transport warns at start.
 *
 * <p>Immutable.
 */
final class NatsTls {
  /** The properties key that allows trusting every certificate. */
  static final String INSECURE_TRUST_ALL = "tls.insecure-trust-all";

  private final NatsTransport.TlsMode mode;
  private final @Nullable SSLContext context;

  private NatsTls(NatsTransport.TlsMode mode, @Nullable SSLContext context) {
    this.mode = mode;
    this.context = context;
  }

  /**
   * @param servers the server URLs ({@code nats://}, {@code tls://}, {@code opentls://}, {@code ws://},
   *     {@code wss://}; no scheme means {@code nats://})
   * @param tls the TLS settings given, or {@code null}
   * @param insecureTrustAll whether trusting every certificate was asked for
   * @return the decision, its context built (files read)
   * @throws IllegalArgumentException naming {@value #INSECURE_TRUST_ALL} when {@code opentls://} is used without it,
   *     or when it is combined with other TLS settings; or when a TLS file cannot be read
   */
  static NatsTls of(List<String> servers, @Nullable TlsSettings tls, boolean insecureTrustAll) {
    boolean open = servers.stream().anyMatch(url -> scheme(url).equals("opentls"));
    boolean secure = servers.stream().anyMatch(url -> scheme(url).equals("tls") || scheme(url).equals("wss"));
    if (insecureTrustAll) {
      if (tls != null) {
        throw new IllegalArgumentException(INSECURE_TRUST_ALL + " trusts every certificate: it cannot be combined with"
            + " the other tls.* settings (trust store, client certificate, hostname verification)");
      }
      try {
        return new NatsTls(NatsTransport.TlsMode.TRUSTS_EVERY_CERTIFICATE, SSLUtils.createTrustAllTlsContext());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("cannot create a TLS context: " + e.getMessage(), e);
      }
    }
    if (open) {
      throw new IllegalArgumentException("an opentls:// server URL trusts every certificate, so anyone on the network"
          + " path can read and change what is sent; use tls:// (the certificate and host name are verified), or set "
          + INSECURE_TRUST_ALL + ": true (builder: withInsecureTrustAll(true)) if that is really meant");
    }
    if (tls != null) {
      return new NatsTls(tls.hostnameVerification() ? NatsTransport.TlsMode.VERIFIED
          : NatsTransport.TlsMode.WITHOUT_HOSTNAME_VERIFICATION, tls.sslContext());
    }
    if (secure) {
      return new NatsTls(NatsTransport.TlsMode.VERIFIED, TlsSettings.builder().build().sslContext());
    }
    return new NatsTls(NatsTransport.TlsMode.OFF, null);
  }

  private static String scheme(String url) {
    int end = url.indexOf("://");
    return end < 0 ? "nats" : url.substring(0, end).trim().toLowerCase(Locale.ROOT);
  }

  /** @return how the servers' certificates are checked */
  NatsTransport.TlsMode mode() {
    return mode;
  }

  /** Puts the context, if any, on the client's options (a context makes the client speak TLS to every server). */
  void apply(Options.Builder options) {
    if (context != null) {
      options.sslContext(context);
    }
  }
}
