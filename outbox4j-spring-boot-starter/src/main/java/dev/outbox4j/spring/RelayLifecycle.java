package dev.outbox4j.spring;

import dev.outbox4j.Relay;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a {@link Relay}'s background worker with the application context: started once the context has refreshed
 * (every singleton exists, the schema is migrated), closed gracefully when the context closes (no new claims;
 * deliveries in flight finish within the relay's shutdown grace; nothing unconfirmed is marked delivered).
 *
 * <p>Its phase is {@link #PHASE}: it starts after, and stops before, lifecycle beans of the default phase range such
 * as the web server, so the relay is already stopping while requests drain. A relay cannot be restarted: a context
 * stopped and started again needs a new relay bean (this lifecycle then refuses to start, naming the cause).
 *
 * <p>Thread-safe.
 */
public final class RelayLifecycle implements SmartLifecycle {
  /** The lifecycle phase: late start, early stop. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

  private final Relay relay;

  /** @param relay the relay to run */
  public RelayLifecycle(Relay relay) {
    this.relay = Objects.requireNonNull(relay, "relay");
  }

  @Override
  public void start() {
    relay.start();
  }

  @Override
  public void stop() {
    relay.close();
  }

  @Override
  public boolean isRunning() {
    return relay.isRunning();
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** @return the relay this lifecycle runs */
  public Relay relay() {
    return relay;
  }
}
