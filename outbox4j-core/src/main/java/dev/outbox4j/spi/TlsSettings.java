package dev.outbox4j.spi;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;
import org.jspecify.annotations.Nullable;

/**
 * How a transport speaks TLS: which certificate authorities it trusts, which certificate (if any) it presents, and
 * whether it checks that the server's certificate names the host it connected to.
 *
 * <p>Files are read by {@link #sslContext()}, not by the builder, so a transport built from properties fails at
 * start, with the key named, when a file is missing or unreadable. Two formats are read, told apart by content:
 * <ul>
 *   <li><b>PEM</b>: one or more {@code -----BEGIN CERTIFICATE-----} blocks (trust store, client certificate chain);
 *       a client key as an unencrypted PKCS#8 {@code -----BEGIN PRIVATE KEY-----} block (RSA, EC or Ed25519);
 *   <li><b>PKCS#12</b> ({@code .p12}, {@code .pfx}): a trust store of certificates, or a key store with the client
 *       key and its chain, each with an optional password.
 * </ul>
 * Without a trust store the JVM's default certificate authorities are trusted. Hostname verification is on by
 * default; switching it off accepts any certificate the trusted authorities signed, whatever host it names.
 *
 * <p>Passwords are never shown by {@link #toString()} nor in any exception message.
 *
 * <p>Immutable and thread-safe.
 */
public final class TlsSettings {
  private static final Pattern PEM_BEGIN = Pattern.compile("-----BEGIN ((?:RSA |EC |DSA |ENCRYPTED |OPENSSH )?)PRIVATE KEY-----");

  private static final String PEM_MARK = "-----BEGIN ";

  private final @Nullable Path trustStore;
  private final @Nullable String trustStorePassword;
  private final @Nullable Path keyStore;
  private final @Nullable String keyStorePassword;
  private final @Nullable Path certificate;
  private final @Nullable Path key;
  private final boolean hostnameVerification;

  private TlsSettings(Builder builder) {
    this.trustStore = builder.trustStore;
    this.trustStorePassword = builder.trustStorePassword;
    this.keyStore = builder.keyStore;
    this.keyStorePassword = builder.keyStorePassword;
    this.certificate = builder.certificate;
    this.key = builder.key;
    this.hostnameVerification = builder.hostnameVerification;
  }

  /** @return a builder: JVM default trust, no client certificate, hostname verification on; not thread-safe */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads the {@code tls.*} keys of a transport's properties. TLS is on when {@code tls.enabled} is {@code true}, or
   * when it is absent and any other {@code tls.*} key is given. Keys:
   * <ul>
   *   <li>{@code tls.enabled}: {@code true} or {@code false};
   *   <li>{@code tls.trust-store}: a PEM or PKCS#12 file of trusted authorities (default: the JVM's);
   *       {@code tls.trust-store-password} for a PKCS#12 file;
   *   <li>{@code tls.key-store}: a PKCS#12 file with the client key and certificate, {@code tls.key-store-password};
   *       or {@code tls.certificate} (PEM chain) with {@code tls.key} (PEM PKCS#8 key);
   *   <li>{@code tls.hostname-verification}: default {@code true}.
   * </ul>
   *
   * @param props the transport's properties
   * @return the settings, or empty when TLS is off
   * @throws IllegalArgumentException naming the key when a value is malformed or a pair is incomplete
   */
  public static Optional<TlsSettings> fromProperties(TransportProperties props) {
    Builder builder = builder();
    boolean any = false;
    Optional<String> trust = props.string("tls.trust-store");
    Optional<String> trustPassword = props.string("tls.trust-store-password");
    Optional<String> keyStore = props.string("tls.key-store");
    Optional<String> keyStorePassword = props.string("tls.key-store-password");
    Optional<String> certificate = props.string("tls.certificate");
    Optional<String> key = props.string("tls.key");
    Optional<Boolean> verify = props.bool("tls.hostname-verification");
    Optional<Boolean> enabled = props.bool("tls.enabled");
    if (trust.isPresent()) {
      builder.withTrustStore(Path.of(trust.get()), trustPassword.orElse(null));
      any = true;
    }
    if (keyStore.isPresent()) {
      builder.withKeyStore(Path.of(keyStore.get()), keyStorePassword.orElse(null));
      any = true;
    }
    if (certificate.isPresent() != key.isPresent()) {
      throw new IllegalArgumentException(props.name() + " properties 'tls.certificate' and 'tls.key' go together");
    }
    if (certificate.isPresent()) {
      builder.withClientCertificate(Path.of(certificate.get()), Path.of(key.get()));
      any = true;
    }
    if (verify.isPresent()) {
      builder.withHostnameVerification(verify.get());
      any = true;
    }
    any |= trustPassword.isPresent() || keyStorePassword.isPresent();
    if (!enabled.orElse(any)) {
      return Optional.empty();
    }
    try {
      return Optional.of(builder.build());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(props.name() + " TLS properties: " + e.getMessage(), e);
    }
  }

  /** @return whether the client checks that the server's certificate names the host it connected to */
  public boolean hostnameVerification() {
    return hostnameVerification;
  }

  /** @return whether a client certificate is presented (a key store, or a PEM certificate and key) */
  public boolean presentsClientCertificate() {
    return keyStore != null || certificate != null;
  }

  /**
   * Reads the files and builds a client context. With hostname verification on (the default), every socket and engine
   * the context makes asks for it, even when the client using it does not; with it off, the trust managers check the
   * chain but never the host name, whatever the client asks for.
   *
   * @return a new TLS client context
   * @throws IllegalArgumentException naming the file that is missing, unreadable or of the wrong kind (never a
   *     password)
   */
  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers(), trustManagers(), null);
      return hostnameVerification ? new HostnameCheckingContext(context) : context;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /**
   * A context for the accepting side of a connection (the runnable relay's own HTTPS server): it presents the
   * configured certificate and key (a key store, or a PEM certificate and key) and asks nothing of its clients.
   *
   * @return a new server context
   * @throws IllegalArgumentException when no certificate is configured, or naming the file that cannot be read
   */
  public SSLContext serverContext() {
    if (!presentsClientCertificate()) {
      throw new IllegalArgumentException("a server needs a certificate and key (a key store, or PEM certificate and"
          + " key)");
    }
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  private KeyManager @Nullable [] keyManagers() throws GeneralSecurityException {
    KeyStore store;
    char[] password;
    if (keyStore != null) {
      password = chars(keyStorePassword);
      store = loadPkcs12(keyStore, password, "key store");
    } else if (certificate != null && key != null) {
      password = new char[0];
      store = KeyStore.getInstance("PKCS12");
      loadEmpty(store);
      List<Certificate> chain = readCertificates(certificate, "certificate");
      store.setKeyEntry("client", readPrivateKey(key), password, chain.toArray(Certificate[]::new));
    } else {
      return null;
    }
    KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, password);
    return factory.getKeyManagers();
  }

  private TrustManager[] trustManagers() throws GeneralSecurityException {
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trustStore == null ? null : loadTrustStore(trustStore, trustStorePassword));
    TrustManager[] managers = factory.getTrustManagers();
    if (hostnameVerification) {
      return managers;
    }
    for (int i = 0; i < managers.length; i++) {
      if (managers[i] instanceof X509TrustManager manager) {
        managers[i] = new ChainOnlyTrustManager(manager);
      }
    }
    return managers;
  }

  private static KeyStore loadTrustStore(Path file, @Nullable String password) {
    byte[] content = read(file, "trust store");
    if (!isPem(content)) {
      KeyStore store = loadPkcs12(file, password == null ? null : password.toCharArray(), "trust store");
      try {
        if (store.size() == 0) {
          throw new IllegalArgumentException("trust store " + file + " holds no readable certificate (a PKCS#12"
              + " trust store whose certificates are encrypted needs its password: tls.trust-store-password)");
        }
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException("trust store " + file + " cannot be used: " + e.getMessage(), e);
      }
      return store;
    }
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      loadEmpty(store);
      int index = 0;
      for (Certificate certificate : parseCertificates(content, file, "trust store")) {
        store.setCertificateEntry("ca-" + index++, certificate);
      }
      return store;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("trust store " + file + " cannot be used: " + e.getMessage(), e);
    }
  }

  private static KeyStore loadPkcs12(Path file, char @Nullable [] password, String what) {
    byte[] content = read(file, what);
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(new ByteArrayInputStream(content), password);
      return store;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(what + " " + file
          + " is neither PEM nor a PKCS#12 file readable with the given password", e);
    }
  }

  private static List<Certificate> readCertificates(Path file, String what) {
    return parseCertificates(read(file, what), file, what);
  }

  private static List<Certificate> parseCertificates(byte[] content, Path file, String what) {
    try {
      List<Certificate> certificates = new ArrayList<>(
          CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(content)));
      if (certificates.isEmpty()) {
        throw new IllegalArgumentException(what + " " + file + " holds no certificate");
      }
      return certificates;
    } catch (CertificateException e) {
      throw new IllegalArgumentException(what + " " + file + " is not a PEM certificate file: " + e.getMessage(), e);
    }
  }

  private static PrivateKey readPrivateKey(Path file) {
    String text;
    try {
      text = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new KeyFileException("private key " + file + " cannot be read: " + e, e);
    }
    String begin = "-----BEGIN PRIVATE KEY-----";
    int start = text.indexOf(begin);
    int end = text.indexOf("-----END PRIVATE KEY-----");
    if (start < 0 || end < start) {
      Matcher other = PEM_BEGIN.matcher(text);
      String found = other.find() ? "; it holds a " + other.group() + " block" : "; it holds no PEM private key";
      throw new KeyFileException("private key " + file + " must be an unencrypted PKCS#8 PEM key"
          + " (-----BEGIN PRIVATE KEY-----)" + found + "; convert it with: openssl pkcs8 -topk8 -nocrypt -in "
          + file + " -out <new file>", null);
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(start + begin.length(), end));
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "EdDSA")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // try the next algorithm
      }
    }
    throw new KeyFileException("private key " + file + " is not an RSA, EC or Ed25519 PKCS#8 key", null);
  }

  /**
   * The private key file of a PEM certificate and key pair cannot be used: so a caller can name the setting of the
   * key rather than of the certificate.
   */
  public static final class KeyFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    KeyFileException(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  private static byte[] read(Path file, String what) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(what + " " + file + " cannot be read: " + e, e);
    }
  }

  private static boolean isPem(byte[] content) {
    return new String(content, StandardCharsets.ISO_8859_1).contains(PEM_MARK);
  }

  private static void loadEmpty(KeyStore store) throws GeneralSecurityException {
    try {
      store.load(null, null);
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static char[] chars(@Nullable String password) {
    return password == null ? new char[0] : password.toCharArray();
  }

  @Override
  public String toString() {
    return "TlsSettings{trustStore=" + (trustStore == null ? "JVM default" : trustStore)
        + ", clientCertificate=" + (keyStore != null ? keyStore : certificate)
        + ", hostnameVerification=" + hostnameVerification + "}";
  }

  /**
   * Checks the chain and never the host name: the two-argument checks of the wrapped manager ignore the endpoint
   * identification a client may have asked for.
   */
  private static final class ChainOnlyTrustManager extends X509ExtendedTrustManager {
    private final X509TrustManager delegate;

    ChainOnlyTrustManager(X509TrustManager delegate) {
      this.delegate = delegate;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate.getAcceptedIssuers();
    }
  }

  /** Configures {@link TlsSettings}. Not thread-safe. */
  public static final class Builder {
    private @Nullable Path trustStore;
    private @Nullable String trustStorePassword;
    private @Nullable Path keyStore;
    private @Nullable String keyStorePassword;
    private @Nullable Path certificate;
    private @Nullable Path key;
    private boolean hostnameVerification = true;

    private Builder() {}

    /**
     * @param file a PEM file of certificates or a PKCS#12 trust store; default the JVM's certificate authorities
     * @param password the PKCS#12 password, or {@code null}; never logged
     * @return this builder
     */
    public Builder withTrustStore(Path file, @Nullable String password) {
      this.trustStore = Objects.requireNonNull(file, "trustStore");
      this.trustStorePassword = password;
      return this;
    }

    /**
     * @param file a PKCS#12 file with the client's key and certificate chain
     * @param password its password, or {@code null}; never logged
     * @return this builder
     */
    public Builder withKeyStore(Path file, @Nullable String password) {
      this.keyStore = Objects.requireNonNull(file, "keyStore");
      this.keyStorePassword = password;
      return this;
    }

    /**
     * @param chain a PEM file with the client certificate (and any intermediates after it)
     * @param privateKey a PEM file with its unencrypted PKCS#8 key
     * @return this builder
     */
    public Builder withClientCertificate(Path chain, Path privateKey) {
      this.certificate = Objects.requireNonNull(chain, "certificate");
      this.key = Objects.requireNonNull(privateKey, "key");
      return this;
    }

    /**
     * @param verify whether the server's certificate must name the host connected to; default {@code true}
     * @return this builder
     */
    public Builder withHostnameVerification(boolean verify) {
      this.hostnameVerification = verify;
      return this;
    }

    /**
     * @return the settings (files are read later, by {@link TlsSettings#sslContext()})
     * @throws IllegalArgumentException when both a key store and a PEM client certificate are given
     */
    public TlsSettings build() {
      if (keyStore != null && certificate != null) {
        throw new IllegalArgumentException(
            "give the client certificate either as a key store or as a PEM certificate and key, not both");
      }
      return new TlsSettings(this);
    }
  }
}
