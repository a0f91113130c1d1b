package dev.outbox4j.bench;

/**
 * One measured thing: set-up that is not measured ({@link #prepare}), then the work that is ({@link #execute}).
 * Implementations own their pools and tables and release them in {@link #close()}.
 */
interface Scenario extends AutoCloseable {

  /** @return a stable id, used by the ratios (for example {@code ceiling-delete}) */
  String id();

  /** @return the row label in the table */
  String title();

  /**
   * Gets a run of {@code messages} ready: fills tables, starts nothing that consumes CPU. Not measured.
   *
   * @param messages N for this run
   */
  void prepare(int messages) throws Exception;

  /**
   * Does the measured work and returns when it is finished (every message written and/or delivered).
   *
   * @param messages N for this run, as prepared
   * @return what happened
   * @throws IllegalStateException if the work did not complete (a message lost or left behind)
   */
  Outcome execute(int messages) throws Exception;

  /**
   * @param messages the N the runner would use
   * @param warmUp whether this is a warm-up run
   * @return the N this scenario actually uses; by default {@code messages} (a fixed-rate scenario derives its own)
   */
  default int messages(int messages, boolean warmUp) {
    return messages;
  }

  /**
   * @return the bytes of each message's payload: 200, or a large-message row's size (whose N the runner derives from
   *     it, {@link BenchOptions#messagesFor})
   */
  default int payloadBytes() {
    return Payloads.SIZE;
  }

  @Override
  default void close() throws Exception {}
}
