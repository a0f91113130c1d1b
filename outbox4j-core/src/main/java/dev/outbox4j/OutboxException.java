package dev.outbox4j;

/**
 * The root of every exception outbox4j throws. Unchecked: callers catch the specific subclass they can act on
 * ({@link MessageRejectedException}, {@link DuplicateMessageException}, {@link OptimisticConflictException},
 * {@link EntryNotFoundException}) and let the rest propagate.
 *
 * <p>A store wraps the failures of its database driver in this type, with the driver's exception as the cause, so
 * callers never depend on a vendor exception.
 */
public class OutboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong, never {@code null}
   */
  public OutboxException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong, never {@code null}
   * @param cause the underlying failure, may be {@code null}
   */
  public OutboxException(String message, @org.jspecify.annotations.Nullable Throwable cause) {
    super(message, cause);
  }
}
