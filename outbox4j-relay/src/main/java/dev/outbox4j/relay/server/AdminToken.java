package dev.outbox4j.relay.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The token that admin actions (requeue, discard, park, pause, ...) must carry as {@code Authorization: Bearer <token>}.
 * A header, not a cookie, so another site open in the same browser cannot make the browser send it (no cross-site
 * request forgery). Its {@linkplain #name() name} (configured, default {@code admin}) is who the audit log of operator
 * actions says acted; the token itself is never written anywhere.
 *
 * <p>Immutable and thread-safe. {@link #toString()} never shows the token.
 */
public final class AdminToken {
  private final String value;
  private final boolean generated;
  private final String name;

  private AdminToken(String value, boolean generated, String name) {
    this.value = value;
    this.generated = generated;
    this.name = name;
  }

  /**
   * A token named {@code admin}.
   *
   * @param configured the configured token, or {@code null} to generate 128 random bits
   * @param random the source of a generated token
   * @return the token
   */
  public static AdminToken configuredOrGenerated(@Nullable String configured, SecureRandom random) {
    return configuredOrGenerated(configured, "admin", random);
  }

  /**
   * @param configured the configured token, or {@code null} to generate 128 random bits
   * @param name who acts with it, for the audit log; not blank
   * @param random the source of a generated token
   * @return the token
   * @throws IllegalArgumentException if the name is blank
   */
  public static AdminToken configuredOrGenerated(@Nullable String configured, String name, SecureRandom random) {
    if (name.isBlank()) {
      throw new IllegalArgumentException("an admin token's name must not be blank");
    }
    if (configured != null) {
      return new AdminToken(configured, false, name);
    }
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return new AdminToken(HexFormat.of().formatHex(bytes), true, name);
  }

  /** @return who acts with this token, as the audit log names them (never the token) */
  public String name() {
    return name;
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
    return "AdminToken{" + name + ", ****" + (generated ? ", generated" : "") + "}";
  }
}
