package dev.outbox4j.flow;

import dev.outbox4j.OutboxException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A flow's state exists but cannot be interpreted. This is deliberately not absence: callers treat an absent flow as
 * "acknowledge and forget", which would strand a live flow whose state is merely unreadable (written by newer code,
 * damaged, or inconsistent). Leave the wake-up unacknowledged, alert, and let an operator (or newer code) deal with
 * it.
 */
public final class FlowStateUnreadableException extends OutboxException {
  private static final long serialVersionUID = 1L;

  /** Why a stored state is unreadable. */
  public enum Reason {
    /** The stored bytes are not a state the codec can parse. */
    MALFORMED,
    /** The content is well formed, but its schema version is not one this application reads. */
    UNKNOWN_SCHEMA_VERSION,
    /** The revision inside the content differs from the revision stored beside it. */
    REVISION_MISMATCH,
    /** The flow id inside the content is not the key the content is stored under. */
    FLOW_ID_MISMATCH
  }

  private final String flowId;
  private final Reason reason;

  /**
   * @param flowId the flow whose state is unreadable
   * @param reason why
   * @param detail what exactly is wrong, without quoting the content
   * @param cause the codec's failure, may be {@code null}
   */
  public FlowStateUnreadableException(String flowId, Reason reason, String detail, @Nullable Throwable cause) {
    super("the stored state of flow '" + flowId + "' is unreadable (" + reason + "): " + detail, cause);
    this.flowId = Objects.requireNonNull(flowId, "flowId");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** @return the flow whose state is unreadable */
  public String flowId() {
    return flowId;
  }

  /** @return why it is unreadable */
  public Reason reason() {
    return reason;
  }
}
