package dev.outbox4j.flow;

import dev.outbox4j.OutboxException;
import java.util.Objects;

/**
 * A flow state's serialized form is larger than the ledger's budget. Nothing was written. Keep large artefacts
 * elsewhere and store a reference in the state.
 */
public final class FlowStateTooLargeException extends OutboxException {
  private static final long serialVersionUID = 1L;

  private final String flowId;
  private final int sizeBytes;
  private final int budgetBytes;

  /**
   * @param flowId the flow
   * @param sizeBytes the serialized size, in bytes
   * @param budgetBytes the ledger's budget, in bytes
   */
  public FlowStateTooLargeException(String flowId, int sizeBytes, int budgetBytes) {
    super("the serialized state of flow '" + flowId + "' is " + sizeBytes + " bytes; the ledger's budget is "
        + budgetBytes + " bytes");
    this.flowId = Objects.requireNonNull(flowId, "flowId");
    this.sizeBytes = sizeBytes;
    this.budgetBytes = budgetBytes;
  }

  /** @return the flow */
  public String flowId() {
    return flowId;
  }

  /** @return the serialized size, in bytes */
  public int sizeBytes() {
    return sizeBytes;
  }

  /** @return the ledger's budget, in bytes */
  public int budgetBytes() {
    return budgetBytes;
  }
}
