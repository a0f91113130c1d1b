package dev.outbox4j;

/**
 * A message was refused before anything was written, because one of its fields broke a limit. The caller's
 * transaction is left usable: nothing was sent to the database.
 *
 * <p>{@link #field()} names the offending field (for example {@code destination}, {@code payload} or
 * {@code headers[traceparent]}) and {@link #limit()} states the limit in words (for example
 * {@code at most 1048576 bytes}).
 */
public final class MessageRejectedException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String limit;

  /**
   * @param field the field that broke the limit
   * @param limit the limit, in words, including its unit
   * @param actual what was found instead, in words (never the payload itself)
   */
  public MessageRejectedException(String field, String limit, String actual) {
    super("message rejected: " + field + " must be " + limit + " (was " + actual + ")");
    this.field = field;
    this.limit = limit;
  }

  /** @return the name of the field that broke its limit */
  public String field() {
    return field;
  }

  /** @return the limit, in words, with its unit */
  public String limit() {
    return limit;
  }
}
