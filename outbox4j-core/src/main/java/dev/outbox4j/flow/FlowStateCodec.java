package dev.outbox4j.flow;

/**
 * Turns a {@link FlowState} into stored bytes and back. The bytes must carry the flow id, the revision and the schema
 * version as well as the body, so the ledger can check them against the row they were stored in.
 *
 * <p>{@code outbox4j-json} provides the default, JSON, codec. Implementations must be thread-safe.
 *
 * @param <B> the body type
 */
public interface FlowStateCodec<B> {

  /**
   * Serializes a state. Must accept any schema version (including ones {@link #decode} refuses), so a store's content
   * can be written by one version of an application and read by another.
   *
   * @param state the state
   * @return its bytes; never empty
   * @throws dev.outbox4j.OutboxException if the body cannot be serialized
   */
  byte[] encode(FlowState<B> state);

  /**
   * Reads bytes written by {@link #encode}.
   *
   * @param stored the stored bytes
   * @return the state they hold
   * @throws FlowStateDecodingException with {@link FlowStateUnreadableException.Reason#MALFORMED} when the bytes are
   *     not a state, or with {@link FlowStateUnreadableException.Reason#UNKNOWN_SCHEMA_VERSION} when they are one
   *     whose schema version this codec does not read
   */
  FlowState<B> decode(byte[] stored);
}
