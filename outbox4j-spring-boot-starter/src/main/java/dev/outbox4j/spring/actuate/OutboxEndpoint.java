package dev.outbox4j.spring.actuate;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code outbox4j} Actuator endpoint: quarantined entries (never their payloads), the relay's paused destinations,
 * and the operator's ways out.
 *
 * <ul>
 *   <li>read: {@code GET /actuator/outbox4j?limit=&after=} lists quarantined entries in sequence order, at most
 *       {@code limit} (default 100, at most {@value QuarantineQuery#MAX_LIMIT}) after sequence {@code after}, and the
 *       destinations the relay has paused (all of their deliveries failing alike), whatever the paging;
 *   <li>write: {@code POST /actuator/outbox4j/{id}} requeues the entry (pending again, attempts reset);
 *   <li>delete: {@code DELETE /actuator/outbox4j/{id}} discards it;
 *   <li>write: {@code POST /actuator/outbox4j} with a JSON selection ({@code {"all": true}}, or any of {@code key},
 *       {@code destination}, {@code reason}, {@code kind}, which must all match) requeues every selected entry;
 *   <li>delete: {@code DELETE /actuator/outbox4j?key=&destination=&reason=&kind=&all=} discards them.
 * </ul>
 * A bulk action works in batches of {@value #BATCH} entries per transaction and needs at least one criterion or
 * {@code all=true}, so an empty request never empties the quarantine by accident.
 *
 * <p>Exposed and secured like Actuator's own endpoints: not exposed over HTTP unless listed in
 * {@code management.endpoints.web.exposure.include}; {@code management.endpoint.outbox4j.access=read-only} removes
 * the write operations; Spring Security rules for {@code EndpointRequest} apply. Thread-safe.
 */
@Endpoint(id = "outbox4j")
public final class OutboxEndpoint {
  private static final int DEFAULT_LIMIT = 100;
  /** Entries changed per transaction by a bulk action. */
  static final int BATCH = 500;

  private final OutboxStore store;
  private final Clock clock;
  private final Supplier<List<DestinationStatus>> pausedDestinations;

  /**
   * Without a relay: no destination is ever listed paused.
   *
   * @param store the outbox store
   * @param clock the time a requeued entry becomes available
   */
  public OutboxEndpoint(OutboxStore store, Clock clock) {
    this(store, clock, List::of);
  }

  /**
   * @param store the outbox store
   * @param clock the time a requeued entry becomes available
   * @param pausedDestinations the relay's paused destinations ({@code relay::pausedDestinations}); empty without one
   */
  public OutboxEndpoint(OutboxStore store, Clock clock, Supplier<List<DestinationStatus>> pausedDestinations) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.pausedDestinations = Objects.requireNonNull(pausedDestinations, "pausedDestinations");
  }

  /**
   * @param limit the most entries to list; default 100
   * @param after list entries after this sequence; default from the start
   * @return the quarantined entries and the paused destinations
   */
  @ReadOperation
  public QuarantineReport quarantined(@Nullable Integer limit, @Nullable Long after) {
    QuarantineQuery query = QuarantineQuery.first(limit == null ? DEFAULT_LIMIT : limit);
    if (after != null) {
      query = query.after(after);
    }
    return new QuarantineReport(store.quarantined(query).stream().map(QuarantinedEntry::of).toList(),
        pausedDestinations.get().stream().map(PausedDestination::of).toList());
  }

  /**
   * @param id the entry's id
   * @return whether a quarantined entry with that id was requeued
   */
  @WriteOperation
  public ActionResult requeue(@Selector String id) {
    UUID entry = UUID.fromString(id);
    return new ActionResult(entry.toString(), "requeue", store.requeue(entry, clock.instant()));
  }

  /**
   * @param id the entry's id
   * @return whether a quarantined entry with that id was discarded
   */
  @DeleteOperation
  public ActionResult discard(@Selector String id) {
    UUID entry = UUID.fromString(id);
    return new ActionResult(entry.toString(), "discard", store.discard(entry));
  }

  /**
   * Requeues every selected entry waiting for an operator (quarantined or parked).
   *
   * @param all {@code true} to select every entry; needed when no criterion is given
   * @param key only entries of this ordering key
   * @param destination only entries for this destination
   * @param reason only entries whose reason contains this text
   * @param kind only quarantined entries of this {@link QuarantineKind}
   * @return how many were requeued
   * @throws IllegalArgumentException if nothing is selected, or a criterion is empty or an unknown kind
   */
  @WriteOperation
  public BulkResult requeueSelected(@Nullable Boolean all, @Nullable String key, @Nullable String destination,
      @Nullable String reason, @Nullable String kind) {
    QuarantineSelector selector = selector(all, key, destination, reason, kind);
    return new BulkResult("requeue", inBatches(() -> store.requeueAll(selector, clock.instant(), BATCH)));
  }

  /**
   * Discards every selected entry waiting for an operator; the parameters are those of {@link #requeueSelected}.
   *
   * @return how many were discarded
   */
  @DeleteOperation
  public BulkResult discardSelected(@Nullable Boolean all, @Nullable String key, @Nullable String destination,
      @Nullable String reason, @Nullable String kind) {
    QuarantineSelector selector = selector(all, key, destination, reason, kind);
    return new BulkResult("discard", inBatches(() -> store.discardAll(selector, BATCH)));
  }

  /** Runs one batch after another until a batch comes back short; returns the entries changed in all. */
  private static long inBatches(java.util.function.IntSupplier batch) {
    long total = 0;
    for (int changed = BATCH; changed == BATCH; total += changed) {
      changed = batch.getAsInt();
    }
    return total;
  }

  private static QuarantineSelector selector(@Nullable Boolean all, @Nullable String key,
      @Nullable String destination, @Nullable String reason, @Nullable String kind) {
    QuarantineKind parsedKind = null;
    if (kind != null) {
      try {
        parsedKind = QuarantineKind.valueOf(kind);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("kind must be one of " + java.util.Arrays.toString(QuarantineKind.values())
            + ", was '" + kind + "'", e);
      }
    }
    if (key == null && destination == null && reason == null && parsedKind == null && !Boolean.TRUE.equals(all)) {
      throw new IllegalArgumentException(
          "select entries with key, destination, reason or kind, or set all=true for every entry");
    }
    return new QuarantineSelector(key, destination, reason, parsedKind);
  }

  /**
   * What a bulk operator action did.
   *
   * @param action {@code requeue} or {@code discard}
   * @param entries how many entries it changed
   */
  public record BulkResult(String action, long entries) {}

  /**
   * The quarantined entries of one page, and the destinations paused now.
   *
   * @param entries in sequence order
   * @param pausedDestinations the destinations the relay has paused, by name; empty while every one flows
   */
  public record QuarantineReport(List<QuarantinedEntry> entries, List<PausedDestination> pausedDestinations) {
    /** @param entries in sequence order; no destination paused */
    public QuarantineReport(List<QuarantinedEntry> entries) {
      this(entries, List.of());
    }
  }

  /**
   * A destination the relay has paused because all of its deliveries failed alike: its entries are held back
   * uncharged and probed at capped intervals; other destinations go on.
   *
   * @param destination the destination
   * @param cause {@code OUTAGE} (judged down by the relay) or {@code OPERATOR} (paused by hand)
   * @param pausedSince when it was paused
   * @param nextProbeAt when its next probe may be sent; {@code null} for an operator pause, which is never probed
   * @param lastError what its last failing delivery answered, or the operator's reason (never a payload)
   * @param failedProbes probes that failed since the pause began
   */
  public record PausedDestination(String destination, String cause, Instant pausedSince,
      @org.jspecify.annotations.Nullable Instant nextProbeAt, String lastError, int failedProbes) {
    static PausedDestination of(DestinationStatus status) {
      return new PausedDestination(status.destination(), status.cause().name(), status.pausedSince(),
          status.nextProbeAt(), status.lastError(), status.failedProbes());
    }
  }

  /**
   * One quarantined entry, without its payload or headers.
   *
   * @param id the message id
   * @param sequence the entry's sequence, for paging
   * @param destination the destination
   * @param orderingKey the ordering key, or {@code null}
   * @param attempts failed attempts
   * @param reason why it was quarantined
   * @param lastError the last delivery error
   * @param createdAt when it was written
   */
  public record QuarantinedEntry(String id, long sequence, String destination, @Nullable String orderingKey,
      int attempts, @Nullable String reason, @Nullable String lastError, Instant createdAt) {
    static QuarantinedEntry of(OutboxEntry entry) {
      return new QuarantinedEntry(entry.id().toString(), entry.sequence(), entry.message().destination(),
          entry.message().orderingKey().orElse(null), entry.attempts(), entry.quarantineReason(), entry.lastError(),
          entry.createdAt());
    }
  }

  /**
   * What an operator action did.
   *
   * @param id the entry's id
   * @param action {@code requeue} or {@code discard}
   * @param applied {@code false} when no quarantined entry has that id
   */
  public record ActionResult(String id, String action, boolean applied) {}
}
