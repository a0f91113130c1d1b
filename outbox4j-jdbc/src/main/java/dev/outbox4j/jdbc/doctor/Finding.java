package dev.outbox4j.jdbc.doctor;

import java.util.Objects;

/**
 * One thing a doctor check found: how much it matters, what it checked, what it found and what fixes it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param level how much it matters
 * @param check what was checked, a short stable name such as {@code isolation} or {@code sequence-cache}
 * @param found what was found, in words, with the values read
 * @param fix the setting or statement that fixes it; empty when nothing needs fixing
 */
public record Finding(Level level, String check, String found, String fix) {
  /** How much a finding matters, most first. */
  public enum Level {
    /** A guarantee does not hold: a message may be lost, sent twice out of order, or not sent at all. */
    UNSAFE,
    /** The guarantees hold, but deliveries are slower or fail and are retried more than they need to. */
    SLOW,
    /** Worth knowing, nothing to fix for the outbox's sake (for example a setting the store overrides itself). */
    INFO,
    /** As it should be. */
    OK
  }

  /** @throws NullPointerException if any part is {@code null} */
  public Finding {
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(found, "found");
    Objects.requireNonNull(fix, "fix");
  }

  /**
   * @param check what was checked
   * @param found what was found
   * @return a finding that needs no fix
   */
  public static Finding ok(String check, String found) {
    return new Finding(Level.OK, check, found, "");
  }

  /**
   * @param check what was checked
   * @param found what was found, and why it matters
   * @param fix what fixes it
   * @return an informational finding
   */
  public static Finding info(String check, String found, String fix) {
    return new Finding(Level.INFO, check, found, fix);
  }

  /**
   * @param check what was checked
   * @param found what was found, and why it matters
   * @param fix what fixes it
   * @return a finding that slows deliveries
   */
  public static Finding slow(String check, String found, String fix) {
    return new Finding(Level.SLOW, check, found, fix);
  }

  /**
   * @param check what was checked
   * @param found what was found, and which guarantee it breaks
   * @param fix what fixes it
   * @return a finding that breaks a guarantee
   */
  public static Finding unsafe(String check, String found, String fix) {
    return new Finding(Level.UNSAFE, check, found, fix);
  }

  /** @return whether it breaks a guarantee */
  public boolean isUnsafe() {
    return level == Level.UNSAFE;
  }
}
