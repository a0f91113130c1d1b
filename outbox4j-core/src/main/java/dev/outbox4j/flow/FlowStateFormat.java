package dev.outbox4j.flow;

import java.util.Objects;

/**
 * A {@link FlowStateCodec} plus the rules every ledger applies around it, so each backend applies them the same way:
 * the size budget on every write, and the consistency checks on every read.
 *
 * <p>A read is unreadable, never absent, when the codec refuses the bytes (malformed content or an unknown schema
 * version), when the revision inside the content differs from the revision stored beside it, or when the flow id
 * inside differs from the key it is stored under. The last two catch rows patched by hand, restored from the wrong
 * backup, or written by a buggy tool.
 *
 * <p>Immutable and thread-safe when the codec is.
 *
 * @param <B> the body type
 */
public final class FlowStateFormat<B> {
  private final FlowStateCodec<B> codec;
  private final int maxStateBytes;

  private FlowStateFormat(FlowStateCodec<B> codec, int maxStateBytes) {
    this.codec = Objects.requireNonNull(codec, "codec");
    if (maxStateBytes <= 0) {
      throw new IllegalArgumentException("maxStateBytes must be positive, was " + maxStateBytes);
    }
    this.maxStateBytes = maxStateBytes;
  }

  /**
   * @param codec the codec
   * @param maxStateBytes the budget for one serialized state, in bytes, positive
   * @param <B> the body type
   * @return the format
   * @throws IllegalArgumentException if the budget is not positive
   */
  public static <B> FlowStateFormat<B> of(FlowStateCodec<B> codec, int maxStateBytes) {
    return new FlowStateFormat<>(codec, maxStateBytes);
  }

  /** @return the budget for one serialized state, in bytes */
  public int maxStateBytes() {
    return maxStateBytes;
  }

  /** @return the codec */
  public FlowStateCodec<B> codec() {
    return codec;
  }

  /**
   * Serializes a state for writing under {@code flowId}, enforcing the budget.
   *
   * @param flowId the key
   * @param state the state; must belong to {@code flowId}
   * @return the bytes to store
   * @throws FlowStateTooLargeException if they exceed the budget
   * @throws IllegalArgumentException if the state belongs to another flow
   */
  public byte[] encode(String flowId, FlowState<B> state) {
    FlowLedger.checkBelongs(flowId, state);
    byte[] bytes = codec.encode(state);
    if (bytes.length > maxStateBytes) {
      throw new FlowStateTooLargeException(flowId, bytes.length, maxStateBytes);
    }
    return bytes;
  }

  /**
   * Reads stored content and checks it against the row it came from.
   *
   * @param flowId the key the content is stored under
   * @param storedRevision the revision stored beside the content
   * @param stored the stored bytes
   * @return the state
   * @throws FlowStateUnreadableException if the content cannot be read or disagrees with its row
   */
  public FlowState<B> decode(String flowId, long storedRevision, byte[] stored) {
    FlowState<B> state;
    try {
      state = codec.decode(stored);
    } catch (FlowStateDecodingException e) {
      throw new FlowStateUnreadableException(flowId, e.reason(), e.getMessage(), e);
    } catch (RuntimeException e) {
      // A codec that breaks its contract by throwing something else still reports unreadable, never absent.
      throw new FlowStateUnreadableException(
          flowId, FlowStateUnreadableException.Reason.MALFORMED, "the codec failed: " + e.getClass().getName(), e);
    }
    if (!state.flowId().equals(flowId)) {
      throw new FlowStateUnreadableException(flowId, FlowStateUnreadableException.Reason.FLOW_ID_MISMATCH,
          "the content names flow '" + state.flowId() + "'", null);
    }
    if (state.revision() != storedRevision) {
      throw new FlowStateUnreadableException(flowId, FlowStateUnreadableException.Reason.REVISION_MISMATCH,
          "the content has revision " + state.revision() + " but the stored revision is " + storedRevision, null);
    }
    return state;
  }
}
