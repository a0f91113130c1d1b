package dev.outbox4j.http;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs webhook requests per the Standard Webhooks specification, so receivers verify them with the reference
 * libraries (or Svix's, or their framework's) instead of code of their own.
 *
 * <p>What is signed is the ASCII text {@code <webhook-id>.<webhook-timestamp>.} followed by the body bytes exactly as
 * sent; the timestamp is Unix seconds. The {@code webhook-signature} header holds one signature per active key,
 * separated by single spaces, each written {@code <version>,<base64>}:
 * <ul>
 *   <li>{@code v1}: HMAC-SHA256 keyed with a symmetric secret. Secrets are written {@code whsec_} followed by the
 *       base64 of the key bytes (the prefix is optional on input);
 *   <li>{@code v1a}: Ed25519 with a private key, the JDK's own {@code Ed25519} signature. Keys are written
 *       {@code whsk_} followed by the base64 of the 32-byte private key (the prefix is optional on input); receivers
 *       check with the matching public key.
 * </ul>
 *
 * <p>Rotation: configure the new secret beside the old one; every request then carries both signatures, and a
 * receiver holding either accepts it. Once every receiver has the new secret, retire the old one by removing it.
 *
 * <p>Immutable and thread-safe. Keys are never shown by {@link #toString()}.
 */
public final class StandardWebhooks {
  /** Header carrying the message id. */
  public static final String ID_HEADER = "webhook-id";
  /** Header carrying the send time in Unix seconds. */
  public static final String TIMESTAMP_HEADER = "webhook-timestamp";
  /** Header carrying the space-separated signatures. */
  public static final String SIGNATURE_HEADER = "webhook-signature";
  /** Prefix of a symmetric ({@code v1}) secret. */
  public static final String SECRET_PREFIX = "whsec_";
  /** Prefix of an Ed25519 ({@code v1a}) private key. */
  public static final String PRIVATE_KEY_PREFIX = "whsk_";
  /** Shortest accepted symmetric key: 24 bytes (the specification asks for 24 to 64). */
  public static final int MIN_SECRET_BYTES = 24;
  /** Longest accepted symmetric key: 64 bytes. */
  public static final int MAX_SECRET_BYTES = 64;

  private final List<SecretKeySpec> secrets;
  private final List<PrivateKey> privateKeys;

  private StandardWebhooks(List<SecretKeySpec> secrets, List<PrivateKey> privateKeys) {
    if (secrets.isEmpty() && privateKeys.isEmpty()) {
      throw new IllegalArgumentException("Standard Webhooks signing needs at least one secret or Ed25519 key");
    }
    this.secrets = List.copyOf(secrets);
    this.privateKeys = List.copyOf(privateKeys);
  }

  /**
   * @param secrets the active {@code v1} secrets, {@code whsec_} + base64 (prefix optional), each
   *     {@value #MIN_SECRET_BYTES} to {@value #MAX_SECRET_BYTES} bytes once decoded; every one signs each request
   * @param ed25519Keys the active {@code v1a} private keys, {@code whsk_} + base64 of the 32-byte key (prefix
   *     optional); every one signs each request
   * @return a signer for those keys
   * @throws IllegalArgumentException if both lists are empty, or naming the position of a key that is not valid
   *     base64 or has the wrong length (never showing the key)
   */
  public static StandardWebhooks of(List<String> secrets, List<String> ed25519Keys) {
    List<SecretKeySpec> macKeys = new ArrayList<>();
    for (int i = 0; i < secrets.size(); i++) {
      byte[] key = decode(Objects.requireNonNull(secrets.get(i), "secret"), SECRET_PREFIX, "secret #" + (i + 1));
      if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
        throw new IllegalArgumentException("secret #" + (i + 1) + " must decode to " + MIN_SECRET_BYTES + " to "
            + MAX_SECRET_BYTES + " bytes, was " + key.length);
      }
      macKeys.add(new SecretKeySpec(key, "HmacSHA256"));
    }
    List<PrivateKey> signingKeys = new ArrayList<>();
    for (int i = 0; i < ed25519Keys.size(); i++) {
      String name = "Ed25519 key #" + (i + 1);
      byte[] raw = decode(Objects.requireNonNull(ed25519Keys.get(i), "ed25519Key"), PRIVATE_KEY_PREFIX, name);
      if (raw.length != 32) {
        throw new IllegalArgumentException(name + " must decode to 32 bytes, was " + raw.length);
      }
      signingKeys.add(ed25519PrivateKey(raw));
    }
    return new StandardWebhooks(macKeys, signingKeys);
  }

  /**
   * @param secrets the active {@code v1} secrets, as for {@link #of}
   * @return a signer with those secrets only
   * @throws IllegalArgumentException as {@link #of}
   */
  public static StandardWebhooks withSecrets(List<String> secrets) {
    return of(secrets, List.of());
  }

  /**
   * @param raw a 32-byte Ed25519 private key
   * @return it as a JDK key
   */
  static PrivateKey ed25519PrivateKey(byte[] raw) {
    try {
      return KeyFactory.getInstance("Ed25519")
          .generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, raw.clone()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is unavailable in this JVM", e);
    }
  }

  private static byte[] decode(String text, String prefix, String name) {
    String body = text.strip();
    if (body.startsWith(prefix)) {
      body = body.substring(prefix.length());
    }
    try {
      return Base64.getDecoder().decode(body);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " must be " + prefix + " followed by base64");
    }
  }

  /**
   * @param messageId the {@value #ID_HEADER} value
   * @param timestampSeconds the {@value #TIMESTAMP_HEADER} value, Unix seconds
   * @param body the body bytes exactly as sent
   * @return the {@value #SIGNATURE_HEADER} value: every {@code v1} signature, then every {@code v1a} one
   */
  public String sign(String messageId, long timestampSeconds, byte[] body) {
    byte[] prefix = (messageId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
    Base64.Encoder base64 = Base64.getEncoder();
    StringBuilder header = new StringBuilder();
    for (SecretKeySpec secret : secrets) {
      separate(header).append("v1,").append(base64.encodeToString(hmac(secret, prefix, body)));
    }
    for (PrivateKey key : privateKeys) {
      separate(header).append("v1a,").append(base64.encodeToString(ed25519(key, prefix, body)));
    }
    return header.toString();
  }

  private static StringBuilder separate(StringBuilder header) {
    return header.isEmpty() ? header : header.append(' ');
  }

  private static byte[] hmac(SecretKeySpec secret, byte[] prefix, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(secret);
      mac.update(prefix);
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 is unavailable in this JVM", e);
    }
  }

  private static byte[] ed25519(PrivateKey key, byte[] prefix, byte[] body) {
    try {
      Signature signature = Signature.getInstance("Ed25519");
      signature.initSign(key);
      signature.update(prefix);
      signature.update(body);
      return signature.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Ed25519 is unavailable in this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "StandardWebhooks{v1 secrets=" + secrets.size() + ", v1a keys=" + privateKeys.size() + "}";
  }
}
