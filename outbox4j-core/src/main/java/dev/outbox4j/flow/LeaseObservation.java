package dev.outbox4j.flow;

import java.time.Instant;
import java.util.Objects;

/**
 * The execution lease of a flow exactly as persisted, without judging whether it has lapsed: see
 * {@link FlowLedger#observeLease}.
 */
public sealed interface LeaseObservation permits LeaseObservation.Held, LeaseObservation.Unheld {

  /** @return the observation "no lease is held" (also reported for an absent flow) */
  static LeaseObservation unheld() {
    return Unheld.INSTANCE;
  }

  /**
   * @param owner the lease id
   * @param expiresAt the persisted expiry
   * @return the observation "held by {@code owner} until {@code expiresAt}"
   */
  static LeaseObservation held(String owner, Instant expiresAt) {
    return new Held(owner, expiresAt);
  }

  /** @return {@code true} when a lease is persisted (expired or not) */
  default boolean isHeld() {
    return this instanceof Held;
  }

  /**
   * A persisted lease. Its expiry may already be in the past: observing does not judge.
   *
   * @param owner the lease id that holds it
   * @param expiresAt the expiry as stored
   */
  record Held(String owner, Instant expiresAt) implements LeaseObservation {
    /** Checks that both parts are present. */
    public Held {
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(expiresAt, "expiresAt");
    }
  }

  /** No lease is persisted, or the flow is absent. */
  enum Unheld implements LeaseObservation {
    /** The only value. */
    INSTANCE
  }
}
