package dev.outbox4j.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One line of the audit log of operator actions ({@link OutboxStore#recordOperatorAction}): who did what to how many
 * entries, and when. The tools that change the outbox on an operator's behalf (the relay app's CLI and dashboard, the
 * Spring Boot Actuator endpoint) record one after each action that changed something or was meant to; dry runs and
 * reads are not recorded.
 *
 * <p>Immutable and thread-safe.
 *
 * @param at when the action was applied
 * @param actor who: the name of the dashboard's admin token, {@code cli} for the relay app's command line, the Spring
 *     Security principal's name or {@code actuator}; not blank, at most {@value #MAX_ACTOR_LENGTH} characters
 * @param action what, as a short lower-case word such as {@link #REQUEUE} or {@link #DISCARD_WAITING} (letters, digits
 *     and dashes, at most {@value #MAX_ACTION_LENGTH} characters); other tools may record words of their own
 * @param target what it acted on, in words ({@code entry 0190…}, {@code destination 'erp'}, {@code group 'erp /
 *     RETRIES_EXHAUSTED / HTTP # from …'}); not blank, at most {@value #MAX_TEXT_LENGTH} characters
 * @param entries how many entries it changed; {@code 0} for pause and resume, which change a destination
 * @param detail anything else worth keeping (the count the operator confirmed, a pause's reason); may be empty, at most
 *     {@value #MAX_TEXT_LENGTH} characters
 */
public record OperatorAction(Instant at, String actor, String action, String target, long entries, String detail) {
  /** Longest actor a store keeps. */
  public static final int MAX_ACTOR_LENGTH = 255;
  /** Longest action word. */
  public static final int MAX_ACTION_LENGTH = 64;
  /** Longest target and detail a store keeps. */
  public static final int MAX_TEXT_LENGTH = 2000;

  /** Quarantined or parked entries put back in line. */
  public static final String REQUEUE = "requeue";
  /** Quarantined or parked entries deleted. */
  public static final String DISCARD = "discard";
  /** Waiting entries of a destination or key parked. */
  public static final String PARK = "park";
  /** Waiting entries of a destination or key deleted. */
  public static final String DISCARD_WAITING = "discard-waiting";
  /** A destination paused by hand. */
  public static final String PAUSE = "pause";
  /** An operator's pause ended. */
  public static final String RESUME = "resume";
  /** Delivered entries past their retention deleted. */
  public static final String PURGE = "purge";

  private static final Pattern ACTION = Pattern.compile("[a-z][a-z0-9-]*");

  /**
   * @throws NullPointerException if a field is {@code null}
   * @throws IllegalArgumentException if actor or target is blank, action is not a lower-case word, entries is
   *     negative, or a text is too long
   */
  public OperatorAction {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(detail, "detail");
    if (actor.isBlank() || actor.length() > MAX_ACTOR_LENGTH) {
      throw new IllegalArgumentException("actor must be 1.." + MAX_ACTOR_LENGTH + " characters and not blank");
    }
    if (action.length() > MAX_ACTION_LENGTH || !ACTION.matcher(action).matches()) {
      throw new IllegalArgumentException("action must be a lower-case word of letters, digits and dashes, at most "
          + MAX_ACTION_LENGTH + " characters, was '" + action + "'");
    }
    if (target.isBlank() || target.length() > MAX_TEXT_LENGTH || detail.length() > MAX_TEXT_LENGTH) {
      throw new IllegalArgumentException("target must be 1.." + MAX_TEXT_LENGTH + " characters and not blank, detail"
          + " at most " + MAX_TEXT_LENGTH);
    }
    if (entries < 0) {
      throw new IllegalArgumentException("entries must not be negative, was " + entries);
    }
  }

  /**
   * An action as a store keeps it: actor, target and detail cut to their longest lengths.
   *
   * @param at when
   * @param actor who; not blank
   * @param action what; a lower-case word
   * @param target what it acted on; not blank
   * @param entries how many entries it changed
   * @param detail anything else; may be empty
   * @return the action
   * @throws IllegalArgumentException as the constructor, for what cutting cannot fix
   */
  public static OperatorAction of(Instant at, String actor, String action, String target, long entries,
      String detail) {
    return new OperatorAction(at, clip(actor, MAX_ACTOR_LENGTH), action, clip(target, MAX_TEXT_LENGTH), entries,
        clip(detail, MAX_TEXT_LENGTH));
  }

  private static String clip(String text, int max) {
    Objects.requireNonNull(text, "text");
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }
}
