package dev.outbox4j.flow;

import dev.outbox4j.OutboxException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link FlowStateCodec} that cannot read stored bytes. A ledger turns it into a
 * {@link FlowStateUnreadableException} naming the flow; callers of a ledger never see this type.
 */
public final class FlowStateDecodingException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final FlowStateUnreadableException.Reason reason;

  /**
   * @param reason {@link FlowStateUnreadableException.Reason#MALFORMED} or
   *     {@link FlowStateUnreadableException.Reason#UNKNOWN_SCHEMA_VERSION}
   * @param detail what is wrong, without quoting the content
   * @param cause the parser's failure, may be {@code null}
   */
  public FlowStateDecodingException(
      FlowStateUnreadableException.Reason reason, String detail, @Nullable Throwable cause) {
    super(detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** @return why the bytes could not be read */
  public FlowStateUnreadableException.Reason reason() {
    return reason;
  }
}
