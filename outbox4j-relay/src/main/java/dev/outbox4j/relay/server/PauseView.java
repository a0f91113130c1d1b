package dev.outbox4j.relay.server;

import dev.outbox4j.DestinationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One paused destination as every face of the relay shows it (the dashboard, {@code /api/destinations},
 * {@code /health/ready}, and through the API {@code status --relay}): its state and when its entries are next sent,
 * both true at the moment they are read. A probe time already past is never shown: once a probe is due and nothing was
 * sent, the relay holds back every entry of the destination it knows, and the next send is when the first comes back.
 * Stateless; thread-safe.
 */
final class PauseView {
  /** A probe was sent and its answers are awaited. */
  static final String PROBING = "probing";
  /** Held back: no delivery of it is under way. */
  static final String PAUSED = "paused";

  private PauseView() {}

  /**
   * @param status the relay's view of the destination, read just now
   * @param now the time it is shown at
   * @return destination, cause ({@code OUTAGE} or {@code OPERATOR}), state ({@code probing} while a probe awaits its
   *     answers, else {@code paused}), pausedSince, pausedForSeconds, nextSendAt and nextSendInSeconds (null when no
   *     time can be told: see nextSend), nextSend (what goes next, in words), failedProbes, lastError
   */
  static Map<String, Object> describe(DestinationStatus status, Instant now) {
    Instant next = status.nextSendAt();
    if (next != null && next.isBefore(now)) {
      next = now; // read a moment before it was shown: due now, not in the past
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("destination", status.destination());
    row.put("cause", status.cause().name());
    row.put("state", status.probing() ? PROBING : PAUSED);
    row.put("pausedSince", status.pausedSince().toString());
    row.put("pausedForSeconds", Math.max(0, Duration.between(status.pausedSince(), now).toMillis() / 1000.0));
    row.put("nextSendAt", next == null ? null : next.toString());
    row.put("nextSendInSeconds", next == null ? null : Duration.between(now, next).toMillis() / 1000.0);
    row.put("nextSend", nextSend(status));
    row.put("failedProbes", status.failedProbes());
    row.put("lastError", status.lastError());
    return row;
  }

  /** @return what the relay sends of the destination next, in words, to go beside {@code nextSendAt} */
  static String nextSend(DestinationStatus status) {
    @Nullable Instant next = status.nextSendAt();
    if (status.cause() == DestinationStatus.Cause.OPERATOR) {
      return "nothing until an operator resumes it";
    }
    if (status.probing()) {
      return "a probe is under way";
    }
    if (next == null) {
      return "its next waiting entry, at the relay's next pass";
    }
    return next.equals(status.nextProbeAt()) ? "a probe: a few of its entries"
        : "the entries it holds back, as they come back";
  }
}
