package dev.outbox4j.http;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The webhook signature: {@code Outbox-Signature: sha256=<hex>}, where {@code <hex>} is the lower-case hexadecimal
 * HMAC-SHA256, keyed with the shared secret's UTF-8 bytes, of the ASCII bytes of the {@code Outbox-Timestamp} header
 * value (Unix seconds), one {@code '.'}, and the request body bytes exactly as received.
 *
 * <p>Signing the timestamp with the body lets a receiver refuse replays of an old request: it checks the signature,
 * then that the timestamp is within its tolerance of its own clock.
 *
 * <p>Immutable and thread-safe. The secret is never shown by {@link #toString()}.
 */
public final class WebhookSignature {
  /** The prefix of the signature header's value, naming the algorithm. */
  public static final String SCHEME = "sha256=";
  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  private WebhookSignature(byte[] secret) {
    if (secret.length == 0) {
      throw new IllegalArgumentException("the signing secret must not be empty");
    }
    this.key = new SecretKeySpec(secret, ALGORITHM);
  }

  /**
   * @param secret the shared secret; its UTF-8 bytes are the HMAC key; non-empty
   * @return a signer and verifier for that secret
   * @throws IllegalArgumentException if the secret is empty
   */
  public static WebhookSignature withSecret(String secret) {
    return new WebhookSignature(Objects.requireNonNull(secret, "secret").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @param timestamp the {@code Outbox-Timestamp} value, Unix seconds as decimal text
   * @param body the request body
   * @return the {@code Outbox-Signature} header value, {@code sha256=} and 64 lower-case hex digits
   */
  public String sign(String timestamp, byte[] body) {
    return SCHEME + HexFormat.of().formatHex(mac(timestamp, body));
  }

  /**
   * Checks a received webhook: the signature must match (compared in constant time) and the timestamp must lie within
   * {@code tolerance} of {@code now}.
   *
   * @param timestamp the received {@code Outbox-Timestamp} header, or {@code null} if absent
   * @param signature the received {@code Outbox-Signature} header, or {@code null} if absent
   * @param body the received body bytes
   * @param now the receiver's current time
   * @param tolerance the largest accepted difference between the timestamp and {@code now}, for example 5 minutes
   * @return {@code true} only for an authentic, fresh request
   */
  public boolean verify(@Nullable String timestamp, @Nullable String signature, byte[] body, Instant now,
      Duration tolerance) {
    if (timestamp == null || signature == null || !signature.startsWith(SCHEME)) {
      return false;
    }
    long seconds;
    try {
      seconds = Long.parseLong(timestamp);
    } catch (NumberFormatException e) {
      return false;
    }
    Duration skew = Duration.between(Instant.ofEpochSecond(seconds), now).abs();
    if (skew.compareTo(tolerance) > 0) {
      return false;
    }
    byte[] received;
    try {
      received = HexFormat.of().parseHex(signature.substring(SCHEME.length()));
    } catch (IllegalArgumentException e) {
      return false;
    }
    return MessageDigest.isEqual(mac(timestamp, body), received);
  }

  private byte[] mac(String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update(timestamp.getBytes(StandardCharsets.US_ASCII));
      mac.update((byte) '.');
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 is unavailable in this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "WebhookSignature{HmacSHA256, secret=****}";
  }
}
