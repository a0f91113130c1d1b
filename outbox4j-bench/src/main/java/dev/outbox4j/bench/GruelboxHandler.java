package dev.outbox4j.bench;

/**
 * The method gruelbox transaction-outbox invokes for each entry: does nothing, like outbox4j's no-op transport, so
 * both libraries are measured doing their own bookkeeping only. Public with a no-argument constructor because
 * gruelbox instantiates it by reflection.
 */
public class GruelboxHandler {
  /** Creates the handler (by reflection, in gruelbox). */
  public GruelboxHandler() {}

  /**
   * Receives the payload and does nothing with it.
   *
   * @param payload the 200-character payload
   */
  public void send(String payload) {
    // The work of a real transport is not what is measured.
  }
}
