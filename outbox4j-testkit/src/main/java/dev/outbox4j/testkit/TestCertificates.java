package dev.outbox4j.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A throwaway certificate authority and the certificates the TLS tests need, written as PEM files into a directory:
 * <ul>
 *   <li>{@code ca.pem}: the authority clients trust; {@code other-ca.pem}: an authority that signed nothing here
 *       (the "wrong CA");
 *   <li>{@code server.pem} / {@code server-key.pem}: a server certificate for {@code localhost} and
 *       {@code 127.0.0.1}, valid for a day; {@code expired.pem} / {@code expired-key.pem}: the same names, expired
 *       yesterday;
 *   <li>{@code elsewhere.pem} / {@code elsewhere-key.pem}: a valid server certificate signed by the CA for
 *       {@code elsewhere.invalid} only (for hostname verification);
 *   <li>{@code client.pem} / {@code client-key.pem}: a client certificate (common name {@code outbox4j-client}) for
 *       mutual TLS; {@code client.p12}: the same as PKCS#12 with password {@value #PKCS12_PASSWORD};
 *       {@code ca.p12}: the CA as a PKCS#12 trust store with that password.
 * </ul>
 * Keys are EC P-256, written as unencrypted PKCS#8. Not thread-safe; make one per test class.
 */
public final class TestCertificates {
  /** Password of the PKCS#12 files. */
  public static final String PKCS12_PASSWORD = "changeit";

  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final Path directory;
  private final KeyPair caKeys;
  private final X509Certificate ca;
  private final KeyPair serverKeys;
  private final X509Certificate server;
  private final KeyPair expiredKeys;
  private final X509Certificate expired;

  private TestCertificates(Path directory) throws GeneralSecurityException, IOException {
    this.directory = directory;
    Instant now = Instant.now();
    Instant dayAgo = now.minus(Duration.ofDays(1));
    Instant dayAhead = now.plus(Duration.ofDays(1));
    caKeys = keys();
    ca = sign("CN=outbox4j test CA", caKeys, "CN=outbox4j test CA", caKeys, dayAgo, dayAhead, true, false);
    KeyPair otherKeys = keys();
    X509Certificate other = sign("CN=some other CA", otherKeys, "CN=some other CA", otherKeys, dayAgo, dayAhead,
        true, false);
    serverKeys = keys();
    server = sign("CN=localhost", serverKeys, "CN=outbox4j test CA", caKeys, dayAgo, dayAhead, false, true);
    expiredKeys = keys();
    expired = sign("CN=localhost", expiredKeys, "CN=outbox4j test CA", caKeys, now.minus(Duration.ofDays(3)), dayAgo,
        false, true);
    KeyPair elsewhereKeys = keys();
    X509Certificate elsewhere = sign("CN=elsewhere.invalid", elsewhereKeys, "CN=outbox4j test CA", caKeys, dayAgo,
        dayAhead, false, new GeneralName[] {new GeneralName(GeneralName.dNSName, "elsewhere.invalid")});
    writePem("elsewhere.pem", elsewhere);
    writePem("elsewhere-key.pem", elsewhereKeys.getPrivate());
    KeyPair clientKeys = keys();
    X509Certificate client = sign("CN=outbox4j-client", clientKeys, "CN=outbox4j test CA", caKeys, dayAgo, dayAhead,
        false, false);
    writePem("ca.pem", ca);
    writePem("other-ca.pem", other);
    writePem("server.pem", server);
    writePem("server-key.pem", serverKeys.getPrivate());
    writePem("expired.pem", expired);
    writePem("expired-key.pem", expiredKeys.getPrivate());
    writePem("client.pem", client);
    writePem("client-key.pem", clientKeys.getPrivate());
    KeyStore clientStore = KeyStore.getInstance("PKCS12");
    clientStore.load(null, null);
    clientStore.setKeyEntry("client", clientKeys.getPrivate(), PKCS12_PASSWORD.toCharArray(),
        new Certificate[] {client, ca});
    try (OutputStream out = Files.newOutputStream(file("client.p12"))) {
      clientStore.store(out, PKCS12_PASSWORD.toCharArray());
    }
    KeyStore trustStore = KeyStore.getInstance("PKCS12");
    trustStore.load(null, null);
    trustStore.setCertificateEntry("ca", ca);
    try (OutputStream out = Files.newOutputStream(file("ca.p12"))) {
      trustStore.store(out, PKCS12_PASSWORD.toCharArray());
    }
  }

  /**
   * @param directory where the files go; created if absent
   * @return the certificates, written
   */
  public static TestCertificates createIn(Path directory) {
    try {
      Files.createDirectories(directory);
      return new TestCertificates(directory);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make test certificates", e);
    }
  }

  /**
   * @param name one of the file names listed in the class comment
   * @return its path
   */
  public Path file(String name) {
    return directory.resolve(name);
  }

  /**
   * A server context for an in-process TLS listener (the HTTPS receiver).
   *
   * @param expiredCertificate whether the server presents the expired certificate
   * @return a context whose key manager presents the server certificate and whose trust manager trusts the test CA
   *     (for client certificates)
   */
  public SSLContext serverContext(boolean expiredCertificate) {
    try {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(null, null);
      KeyPair keys = expiredCertificate ? expiredKeys : serverKeys;
      X509Certificate certificate = expiredCertificate ? expired : server;
      keyStore.setKeyEntry("server", keys.getPrivate(), PKCS12_PASSWORD.toCharArray(),
          new Certificate[] {certificate, ca});
      KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keyStore, PKCS12_PASSWORD.toCharArray());
      KeyStore trustStore = KeyStore.getInstance("PKCS12");
      trustStore.load(null, null);
      trustStore.setCertificateEntry("ca", ca);
      TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trustManagers.init(trustStore);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make a server TLS context", e);
    }
  }

  private static KeyPair keys() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(String subject, KeyPair subjectKeys, String issuer, KeyPair issuerKeys,
      Instant from, Instant until, boolean authority, boolean serverNames) throws GeneralSecurityException,
      IOException {
    return sign(subject, subjectKeys, issuer, issuerKeys, from, until, authority,
        serverNames ? new GeneralName[] {new GeneralName(GeneralName.dNSName, "localhost"),
            new GeneralName(GeneralName.iPAddress, "127.0.0.1")} : null);
  }

  private static X509Certificate sign(String subject, KeyPair subjectKeys, String issuer, KeyPair issuerKeys,
      Instant from, Instant until, boolean authority, GeneralName @Nullable [] names)
      throws GeneralSecurityException, IOException {
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(new X500Name(issuer),
        BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(from), Date.from(until), new X500Name(subject),
        subjectKeys.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
    if (authority) {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } else {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    }
    if (names != null) {
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
    }
    try {
      var signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private void writePem(String name, Object value) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(value instanceof java.security.PrivateKey key
          ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(key, null) : value);
    }
    Files.writeString(file(name), text.toString(), StandardCharsets.US_ASCII);
  }
}
