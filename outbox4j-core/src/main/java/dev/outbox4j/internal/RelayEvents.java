package dev.outbox4j.internal;

import dev.outbox4j.RelayListener;
import java.util.List;
import java.util.function.Consumer;

/**
 * Hands relay events to the listeners. Not API.
 *
 * <p>Why a class of its own: every collaborator of the relay reports events, and all of them must treat a failing
 * listener alike: an exception is logged and ignored (a metrics bug must not stop deliveries), while an {@link Error}
 * goes on up, so that the background worker ends truthfully instead of carrying on in an unknown state.
 *
 * <p>Thread-safe: the listener list is immutable.
 */
final class RelayEvents {
  private final List<RelayListener> listeners;

  RelayEvents(List<RelayListener> listeners) {
    this.listeners = listeners;
  }

  void emit(Consumer<RelayListener> event) {
    for (RelayListener listener : listeners) {
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        RelayLog.LOGGER.log(System.Logger.Level.WARNING,
            "relay listener " + listener.getClass().getName() + " failed", e);
      }
    }
  }

  /** Reports an error to every listener; never throws, not even an {@link Error} of a listener. */
  void error(Throwable error) {
    for (RelayListener listener : listeners) {
      try {
        listener.onError(error);
      } catch (RuntimeException | Error e) {
        RelayLog.LOGGER.log(System.Logger.Level.WARNING,
            "relay listener " + listener.getClass().getName() + " failed in onError", e);
      }
    }
  }
}
