package dev.outbox4j.relay.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The token that admin actions (requeue, discard) must carry as {@code Authorization: Bearer <token>}. A header, not
 * a cookie, so another site open in the same browser cannot make the browser send it (no cross-site request forgery).
 *
 * <p>Immutable and thread-safe. {@link #toString()} never shows the token.
 */
public final class AdminToken {
  private final String value;
  private final boolean generated;

  private AdminToken(String value, boolean generated) {
    this.value = value;
    this.generated = generated;
  }

  /**
   * @param configured the configured token, or {@code null} to generate 128 random bits
   * @param random the source of a generated token
   * @return the token
   */
  public static AdminToken configuredOrGenerated(@Nullable String configured, SecureRandom random) {
    if (configured != null) {
      return new AdminToken(configured, false);
    }
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return new AdminToken(HexFormat.of().formatHex(bytes), true);
  }

  /** @return the token, to print at start-up when it was generated */
  public String value() {
    return value;
  }

  /** @return {@code true} when no token was configured and this one was generated */
  public boolean generated() {
    return generated;
  }

  /** The outcome of checking a request's {@code Authorization} header. */
  public enum Check {
    /** The right token. */
    ACCEPTED,
    /** No bearer token at all: 401. */
    MISSING,
    /** A bearer token, but not this one: 403. */
    WRONG
  }

  /**
   * @param authorization the request's {@code Authorization} header, or {@code null}
   * @return the outcome; compares in constant time
   */
  public Check check(@Nullable String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)
        || authorization.substring(7).isBlank()) {
      return Check.MISSING;
    }
    byte[] given = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, value.getBytes(StandardCharsets.UTF_8)) ? Check.ACCEPTED : Check.WRONG;
  }

  @Override
  public String toString() {
    return "AdminToken{****" + (generated ? ", generated" : "") + "}";
  }
}
