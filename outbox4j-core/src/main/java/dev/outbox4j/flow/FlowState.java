package dev.outbox4j.flow;

import java.util.Objects;

/**
 * The state of one flow run at one revision.
 *
 * <p>The revision is the optimistic-concurrency token: {@link FlowLedger#tryUpdate} replaces a state only when the
 * stored revision is the one the caller read, and the new state carries the next revision. The schema version
 * describes the shape of the body, so a replica running older code refuses (rather than misreads) a body written by
 * newer code. The flow id and revision are serialized with the body, so a ledger can detect content that disagrees
 * with the row it was found in.
 *
 * @param flowId the flow's id: non-blank, at most {@value FlowLedger#MAX_FLOW_ID_LENGTH} characters
 * @param revision the revision, zero or more; a new flow usually starts at 0 or 1
 * @param schemaVersion the version of the body's shape, one or more
 * @param body the application-defined content, serialized by the ledger's {@link FlowStateCodec}
 * @param <B> the body type
 */
public record FlowState<B>(String flowId, long revision, int schemaVersion, B body) {

  /**
   * @throws IllegalArgumentException if the flow id is blank or too long, the revision negative, or the schema
   *     version below 1
   */
  public FlowState {
    FlowLedger.checkFlowId(flowId);
    if (revision < 0) {
      throw new IllegalArgumentException("revision must not be negative, was " + revision);
    }
    if (schemaVersion < 1) {
      throw new IllegalArgumentException("schemaVersion must be at least 1, was " + schemaVersion);
    }
    Objects.requireNonNull(body, "body");
  }

  /**
   * @param nextBody the new body
   * @return a state of the same flow and schema version at the next revision
   */
  public FlowState<B> next(B nextBody) {
    return new FlowState<>(flowId, revision + 1, schemaVersion, nextBody);
  }
}
