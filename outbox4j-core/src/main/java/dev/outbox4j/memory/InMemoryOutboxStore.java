package dev.outbox4j.memory;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.internal.EntryTransitions;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.WaitingSelector;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A process-local reference {@link OutboxStore} that implements the whole contract: leases, fencing, one entry per
 * ordering key in flight, quarantine blocking only its key, versions on every entry. For tests, demos and
 * single-process applications that do not need durability; it passes the same contract suites as the database stores.
 *
 * <p>Writes through {@link #outbox()} are buffered in an {@link InMemoryTransaction} and become visible atomically at
 * commit, in commit order, so the in-memory outbox also shows what a rollback means.
 *
 * <p>Thread-safe: every operation runs under one lock.
 *
 * <p>One class on purpose: every face (claim, entry, operator) works on the same rows under one lock, and splitting
 * the faces would only pass that lock and those maps around; its length is the length of the {@link OutboxStore}
 * contract it implements.
 */
public final class InMemoryOutboxStore implements OutboxStore {
  private static final int MAX_TEXT = 2000;

  /** Mutable per-entry state; guarded by the store's lock. */
  private static final class Row {
    OutboxEntry entry;
    @Nullable UUID claimToken;
    @Nullable Instant leaseUntil;
    /** When the current (or last, if it expired unrecorded) claim was made. */
    @Nullable Instant claimedAt;
    /** See {@link Claim#inDoubtSince()}: the earliest claim since the last recorded outcome that expired unrecorded. */
    @Nullable Instant inDoubtSince;

    Row(OutboxEntry entry) {
      this.entry = entry;
    }
  }

  private final Object lock = new Object();
  private final Clock clock;
  private final Retention retention;
  private final MessageLimits limits;
  private final Map<UUID, Row> byId = new HashMap<>();
  /** Undelivered entries (pending, failed, quarantined) in delivery order. */
  private final TreeMap<Long, Row> undelivered = new TreeMap<>();
  /** Delivered entries kept for retention, in delivery order. */
  private final TreeMap<Long, Row> delivered = new TreeMap<>();
  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();
  /** Destinations paused by an operator, by name. */
  private final TreeMap<String, OperatorPause> pauses = new TreeMap<>();
  /** The audit log of operator actions, in the order recorded. */
  private final List<OperatorAction> audit = new ArrayList<>();
  /**
   * Late-copy bounds of keys whose last undelivered entry was discarded: an entry of the key written later is available
   * no earlier. Dropped once passed, at the next discard or purge.
   */
  private final Map<String, Instant> keyBounds = new HashMap<>();
  private long nextSequence = 1;

  private InMemoryOutboxStore(Builder builder) {
    this.clock = builder.clock;
    this.retention = builder.retention;
    this.limits = builder.limits;
  }

  /** @return a builder with the defaults: system UTC clock, delete on delivery, default message limits */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a store with the defaults */
  public static InMemoryOutboxStore create() {
    return builder().build();
  }

  /** @return the write side of this store: messages written in an {@link InMemoryTransaction} appear at commit */
  public InMemoryOutbox outbox() {
    return new InMemoryOutbox(this);
  }

  /** @return a new transaction for {@link #outbox()} writes */
  public InMemoryTransaction begin() {
    return new InMemoryTransaction(this);
  }

  /**
   * @param listener run after every commit that added entries (for example {@code relay::wakeUp}); must be quick
   */
  public void addCommitListener(Runnable listener) {
    commitListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  // ------------------------------------------------------------------------------------------ introspection

  /**
   * @param id an entry id
   * @return its failed attempts, or 0 when unknown
   */
  public int attemptsOf(UUID id) {
    synchronized (lock) {
      Row row = byId.get(id);
      return row == null ? 0 : row.entry.attempts();
    }
  }

  /**
   * @param id an entry id
   * @return its last error, or empty
   */
  public Optional<String> lastErrorOf(UUID id) {
    synchronized (lock) {
      Row row = byId.get(id);
      return row == null ? Optional.empty() : Optional.ofNullable(row.entry.lastError());
    }
  }

  /** @return entries waiting for delivery (pending or failed), claimed ones included */
  public int pendingCount() {
    synchronized (lock) {
      int count = 0;
      for (Row row : undelivered.values()) {
        if (row.entry.status().isDeliverable()) {
          count++;
        }
      }
      return count;
    }
  }

  // ------------------------------------------------------------------------------------------ claim face

  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease) {
    return claim(limit, now, lease, 1);
  }

  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease, int maxRun) {
    return claim(limit, now, lease, maxRun, Set.of());
  }

  @Override
  public List<Claim> claim(int limit, Instant now, Duration lease, int maxRun, Set<String> skippedDestinations) {
    new ClaimRequest(limit, now, lease, maxRun, skippedDestinations); // checks the arguments
    UUID token = UUID.randomUUID();
    Instant leaseUntil = now.plus(lease);
    List<Row> taken = new ArrayList<>();
    synchronized (lock) {
      // The heads (and unkeyed entries) first, as a claim without runs takes them; then the runs behind the heads fill
      // the room left, their oldest entries first. A key's run so far: how many of its entries may run, or -1 once
      // its run ended (or its head was not taken).
      List<Row> followers = new ArrayList<>();
      Map<String, Integer> runs = new HashMap<>();
      for (Row row : undelivered.values()) {
        if (taken.size() >= limit) {
          break; // the heads fill the batch: no room for runs
        }
        String key = row.entry.message().orderingKey().orElse(null);
        Integer run = key == null ? null : runs.get(key);
        if (key != null && run != null) {
          if (run > 0 && run < maxRun && continuesRun(row, now) && !skipped(row, skippedDestinations)) {
            runs.put(key, run + 1);
            followers.add(row);
          } else {
            runs.put(key, -1);
          }
        } else if (isClaimable(row, now) && !skipped(row, skippedDestinations)) {
          taken.add(row);
          if (key != null) {
            runs.put(key, 1);
          }
        } else if (key != null) {
          runs.put(key, -1);
        }
      }
      for (Row follower : followers) {
        if (taken.size() >= limit) {
          break;
        }
        taken.add(follower);
      }
      taken.sort(java.util.Comparator.comparingLong(row -> row.entry.sequence()));
      List<Claim> claims = new ArrayList<>(taken.size());
      for (Row row : taken) {
        if (row.claimToken != null) {
          // its previous claim expired with nothing recorded: a send under it may have landed
          row.inDoubtSince = row.inDoubtSince != null ? row.inDoubtSince : row.claimedAt;
        }
        row.claimToken = token;
        row.leaseUntil = leaseUntil;
        row.claimedAt = now;
        row.entry = bump(row.entry);
        claims.add(new Claim(row.entry, token, leaseUntil, row.inDoubtSince));
      }
      return claims;
    }
  }

  /** @return whether an entry behind a claimed one of its key may join its run: pending, available, not claimed */
  private static boolean continuesRun(Row row, Instant now) {
    return row.entry.status() == EntryStatus.PENDING && isClaimable(row, now);
  }

  private static boolean skipped(Row row, Set<String> skippedDestinations) {
    return !skippedDestinations.isEmpty() && skippedDestinations.contains(row.entry.message().destination());
  }

  private static boolean isClaimable(Row row, Instant now) {
    return row.entry.status().isDeliverable()
        && !row.entry.availableAt().isAfter(now)
        && (row.leaseUntil == null || !row.leaseUntil.isAfter(now));
  }

  @Override
  public List<Claim> markDelivered(Collection<Claim> claims, Instant now) {
    return eachHeld(claims, row -> retire(row, now, null));
  }

  /** Both halves under the store's lock: no other call sees the retirement without the claim. */
  /** {@code true}: both halves run under the store's one lock, at no cost beyond the two calls'. */
  @Override
  public boolean combinesDeliveredAndClaim() {
    return true;
  }

  @Override
  public DeliveredAndClaimed markDeliveredAndClaim(Collection<Claim> delivered, Instant deliveredAt,
      ClaimRequest next) {
    synchronized (lock) {
      List<Claim> lost = markDelivered(delivered, deliveredAt);
      return new DeliveredAndClaimed(lost, claim(next.limit(), next.now(), next.lease(), next.maxRun(),
          next.skippedDestinations()));
    }
  }

  /** Applies {@code change} to the row of every claim still held; returns the claims that were lost. */
  private List<Claim> eachHeld(Collection<Claim> claims, java.util.function.Consumer<Row> change) {
    List<Claim> lost = new ArrayList<>();
    synchronized (lock) {
      for (Claim claim : claims) {
        Row row = fenced(claim);
        if (row == null) {
          lost.add(claim);
        } else {
          change.accept(row);
        }
      }
    }
    return lost;
  }

  @Override
  public boolean markFailed(Claim claim, String error, Instant nextAttemptAt) {
    synchronized (lock) {
      Row row = fenced(claim);
      if (row == null) {
        return false;
      }
      row.inDoubtSince = null; // an outcome is recorded
      OutboxEntry e = row.entry;
      set(row, new OutboxEntry(e.message(), e.sequence(), EntryStatus.FAILED, e.attempts() + 1, clip(error), null,
          e.createdAt(), nextAttemptAt, null, null, e.version() + 1, null, firstFailure(e)));
      return true;
    }
  }

  @Override
  public boolean postpone(Claim claim, String reason, Instant nextAttemptAt) {
    synchronized (lock) {
      Row row = fenced(claim);
      if (row == null) {
        return false;
      }
      row.inDoubtSince = null; // an outcome is recorded
      OutboxEntry e = row.entry;
      set(row, new OutboxEntry(e.message(), e.sequence(), e.status(), e.attempts(), clip(reason), null,
          e.createdAt(), nextAttemptAt, null, null, e.version() + 1, null, e.firstFailedAt()));
      return true;
    }
  }

  @Override
  public List<Claim> release(Collection<Claim> claims) {
    return eachHeld(claims, row -> set(row, bump(row.entry)));
  }

  @Override
  public boolean quarantine(Claim claim, QuarantineReason reason, Instant lateCopiesLandBy) {
    synchronized (lock) {
      Row row = fenced(claim);
      if (row == null) {
        return false;
      }
      row.inDoubtSince = null; // an outcome is recorded
      OutboxEntry e = row.entry;
      String text = clip(reason.text());
      set(row, new OutboxEntry(e.message(), e.sequence(), EntryStatus.QUARANTINED, e.attempts() + 1, text, text,
          e.createdAt(), later(e.availableAt(), lateCopiesLandBy), null, null, e.version() + 1, reason.kind(),
          e.firstFailedAt()));
      return true;
    }
  }

  @Override
  public List<OutboxEntry> quarantined(QuarantineQuery query) {
    List<OutboxEntry> page = new ArrayList<>();
    synchronized (lock) {
      Long after = query.afterSequence();
      Map<Long, Row> rows = after == null ? undelivered : undelivered.tailMap(after, false);
      for (Row row : rows.values()) {
        if (row.entry.status().awaitsOperator()) {
          page.add(row.entry);
          if (page.size() == query.limit()) {
            break;
          }
        }
      }
    }
    return page;
  }

  @Override
  public boolean requeue(UUID id, Instant now) {
    synchronized (lock) {
      Row row = byId.get(id);
      if (row == null || !row.entry.status().awaitsOperator()) {
        return false;
      }
      requeue(row, now);
      return true;
    }
  }

  private void requeue(Row row, Instant now) {
    OutboxEntry e = row.entry;
    set(row, new OutboxEntry(e.message(), e.sequence(), EntryStatus.PENDING, 0, e.lastError(), null, e.createdAt(),
        later(now, e.availableAt()), null, null, e.version() + 1));
  }

  /**
   * Deletes an entry that waits for an operator, or a waiting one under no unexpired claim. Its available time may be
   * the bound by which a copy of its last send lands: the key's next undelivered entry (in key order, which is
   * {@code seq} order here), its new head, becomes claimable no earlier; when the key has none, the key keeps the
   * bound for the entries written later ({@link #keyBounds}).
   */
  private void discard(Row row) {
    OutboxEntry e = row.entry;
    remove(row);
    Instant now = clock.instant();
    keyBounds.values().removeIf(bound -> !bound.isAfter(now));
    String key = e.message().orderingKey().orElse(null);
    if (key == null) {
      return;
    }
    for (Row next : undelivered.tailMap(e.sequence(), false).values()) {
      if (key.equals(next.entry.message().orderingKey().orElse(null))) {
        if (next.entry.availableAt().isBefore(e.availableAt())) {
          next.entry = bump(next.entry.withAvailableAt(e.availableAt()));
        }
        return;
      }
    }
    if (e.availableAt().isAfter(now)) {
      keyBounds.merge(key, e.availableAt(), InMemoryOutboxStore::later);
    }
  }

  private static Instant later(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  /** @return the entry's first-failure time, or now (by the store's clock) for its first charged failure */
  private Instant firstFailure(OutboxEntry e) {
    Instant first = e.firstFailedAt();
    return first != null ? first : clock.instant();
  }

  @Override
  public boolean discard(UUID id) {
    synchronized (lock) {
      Row row = byId.get(id);
      if (row == null || !row.entry.status().awaitsOperator()) {
        return false;
      }
      discard(row);
      return true;
    }
  }

  @Override
  public int requeueAll(QuarantineSelector selector, Instant now, int limit) {
    synchronized (lock) {
      List<Row> rows = selected(selector, limit);
      rows.forEach(row -> requeue(row, now));
      return rows.size();
    }
  }

  @Override
  public int discardAll(QuarantineSelector selector, int limit) {
    synchronized (lock) {
      List<Row> rows = selected(selector, limit);
      rows.forEach(this::discard);
      return rows.size();
    }
  }

  /** @return up to {@code limit} rows waiting for an operator that the selector matches, oldest first */
  private List<Row> selected(QuarantineSelector selector, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    List<Row> found = new ArrayList<>();
    for (Row row : undelivered.values()) {
      if (found.size() == limit) {
        break;
      }
      if (selector.matches(row.entry)) {
        found.add(row);
      }
    }
    return found;
  }

  @Override
  public List<OutboxEntry> quarantined(QuarantineSelector selector, QuarantineQuery query) {
    List<OutboxEntry> page = new ArrayList<>();
    synchronized (lock) {
      Long after = query.afterSequence();
      Map<Long, Row> rows = after == null ? undelivered : undelivered.tailMap(after, false);
      for (Row row : rows.values()) {
        if (page.size() == query.limit()) {
          break;
        }
        if (selector.matches(row.entry)) {
          page.add(row.entry);
        }
      }
    }
    return page;
  }

  @Override
  public int countQuarantined(QuarantineSelector selector) {
    synchronized (lock) {
      return (int) undelivered.values().stream().filter(row -> selector.matches(row.entry)).count();
    }
  }

  @Override
  public QuarantineGroups quarantineGroups(int limit) {
    if (limit < 1 || limit > QuarantineGroups.MAX_GROUPED) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineGroups.MAX_GROUPED + ", was " + limit);
    }
    synchronized (lock) {
      List<QuarantineGroups.Member> awaiting = undelivered.values().stream()
          .filter(row -> row.entry.status().awaitsOperator())
          .map(row -> QuarantineGroups.Member.of(row.entry)).toList();
      return QuarantineGroups.of(awaiting.subList(0, Math.min(limit, awaiting.size())), awaiting.size());
    }
  }

  @Override
  public void recordOperatorAction(OperatorAction action) {
    Objects.requireNonNull(action, "action");
    synchronized (lock) {
      audit.add(OperatorAction.of(action.at(), action.actor(), action.action(), action.target(), action.entries(),
          action.detail()));
    }
  }

  @Override
  public List<OperatorAction> operatorActions(int limit) {
    if (limit < 1 || limit > QuarantineQuery.MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + limit);
    }
    synchronized (lock) {
      List<OperatorAction> newestFirst = new ArrayList<>(audit);
      // by time, newest first; within one instant, the last recorded first (the sort is stable over reversed order)
      java.util.Collections.reverse(newestFirst);
      newestFirst.sort(java.util.Comparator.comparing(OperatorAction::at).reversed());
      return List.copyOf(newestFirst.subList(0, Math.min(limit, newestFirst.size())));
    }
  }

  @Override
  public int countWaiting(WaitingSelector selector, Instant now) {
    synchronized (lock) {
      return waiting(selector, now, Integer.MAX_VALUE).size();
    }
  }

  @Override
  public int parkWaiting(WaitingSelector selector, Instant now, int limit) {
    checkLimit(limit);
    synchronized (lock) {
      List<Row> rows = waiting(selector, now, limit);
      for (Row row : rows) {
        OutboxEntry e = row.entry;
        set(row, new OutboxEntry(e.message(), e.sequence(), EntryStatus.PARKED, e.attempts(), e.lastError(), null,
            e.createdAt(), e.availableAt(), null, null, e.version() + 1));
      }
      return rows.size();
    }
  }

  @Override
  public int discardWaiting(WaitingSelector selector, Instant now, int limit) {
    checkLimit(limit);
    synchronized (lock) {
      List<Row> rows = waiting(selector, now, limit);
      rows.forEach(this::discard);
      return rows.size();
    }
  }

  /** @return up to {@code limit} waiting rows the selector matches that are under no unexpired claim, oldest first */
  private List<Row> waiting(WaitingSelector selector, Instant now, int limit) {
    List<Row> found = new ArrayList<>();
    for (Row row : undelivered.values()) {
      if (found.size() == limit) {
        break;
      }
      OutboxEntry e = row.entry;
      boolean claimed = row.leaseUntil != null && row.leaseUntil.isAfter(now);
      if (e.status().isDeliverable() && !claimed
          && (selector.destination() == null || selector.destination().equals(e.message().destination()))
          && (selector.orderingKey() == null
              || selector.orderingKey().equals(e.message().orderingKey().orElse(null)))) {
        found.add(row);
      }
    }
    return found;
  }

  private static void checkLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
  }

  @Override
  public boolean pauseDestination(String destination, String by, String reason, Instant now) {
    OperatorPause pause = OperatorPause.of(destination, by, reason, now);
    synchronized (lock) {
      return pauses.putIfAbsent(destination, pause) == null;
    }
  }

  @Override
  public boolean resumeDestination(String destination) {
    synchronized (lock) {
      return pauses.remove(destination) != null;
    }
  }

  @Override
  public List<OperatorPause> operatorPauses() {
    synchronized (lock) {
      return List.copyOf(pauses.values());
    }
  }

  @Override
  public int purgeDelivered(Instant now, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    synchronized (lock) {
      keyBounds.values().removeIf(bound -> !bound.isAfter(now)); // passed late-copy bounds go too
    }
    Optional<Duration> keep = retention.keepPeriod();
    if (keep.isEmpty()) {
      return 0;
    }
    Instant cutoff = now.minus(keep.get());
    int purged = 0;
    synchronized (lock) {
      Iterator<Row> rows = delivered.values().iterator();
      while (rows.hasNext() && purged < limit) {
        Row row = rows.next();
        Instant at = row.entry.deliveredAt();
        if (at != null && !at.isAfter(cutoff)) {
          rows.remove();
          byId.remove(row.entry.id());
          purged++;
        }
      }
    }
    return purged;
  }

  @Override
  public OutboxStats stats(Instant now) {
    Tally all = new Tally();
    synchronized (lock) {
      tally(now, (row, kind) -> all.add(row, kind));
    }
    return all.stats();
  }

  @Override
  public List<DestinationStats> destinationStats(Instant now, int limit) {
    DestinationStats.checkLimit(limit);
    Map<String, Tally> byDestination = new HashMap<>();
    synchronized (lock) {
      tally(now, (row, kind) -> byDestination.computeIfAbsent(row.entry.message().destination(), d -> new Tally())
          .add(row, kind));
    }
    List<DestinationStats> rows = new ArrayList<>();
    byDestination.forEach((destination, tally) -> rows.add(new DestinationStats(destination, tally.stats())));
    rows.sort(DESTINATIONS_MOST_BEHIND_FIRST);
    return List.copyOf(rows.subList(0, Math.min(limit, rows.size())));
  }

  /** As the SPI orders them: by the oldest waiting or blocked entry, destinations with none last, then by name. */
  private static final Comparator<DestinationStats> DESTINATIONS_MOST_BEHIND_FIRST = Comparator
      .comparing((DestinationStats d) -> d.stats().oldestPending().orElse(null),
          Comparator.nullsLast(Comparator.naturalOrder()))
      .thenComparing(DestinationStats::destination);

  private enum Counted { WAITING, IN_FLIGHT, BLOCKED, QUARANTINED }

  /**
   * Hands every undelivered row to {@code sink} with what it counts as. Rows come in delivery order, so a key's
   * quarantined or parked entry is met before the entries it blocks. Called holding the lock.
   */
  private void tally(Instant now, java.util.function.BiConsumer<Row, Counted> sink) {
    Set<String> heldKeys = new HashSet<>();
    for (Row row : undelivered.values()) {
      String key = row.entry.message().orderingKey().orElse(null);
      if (row.entry.status().awaitsOperator()) {
        if (key != null) {
          heldKeys.add(key);
        }
        sink.accept(row, Counted.QUARANTINED);
      } else if (row.entry.status().isDeliverable()) {
        if (row.leaseUntil != null && row.leaseUntil.isAfter(now)) {
          sink.accept(row, Counted.IN_FLIGHT);
        } else if (key != null && heldKeys.contains(key)) {
          sink.accept(row, Counted.BLOCKED);
        } else {
          sink.accept(row, Counted.WAITING);
        }
      }
    }
  }

  /** Counts rows into an {@link OutboxStats}. Not thread-safe. */
  private static final class Tally {
    long waiting;
    long blocked;
    long inFlight;
    long quarantined;
    @Nullable Instant oldestWaiting;
    @Nullable Instant oldestBlocked;

    void add(Row row, Counted kind) {
      Instant created = row.entry.createdAt();
      switch (kind) {
        case QUARANTINED -> quarantined++;
        case BLOCKED -> {
          blocked++;
          oldestBlocked = oldestBlocked == null || created.isBefore(oldestBlocked) ? created : oldestBlocked;
        }
        case IN_FLIGHT, WAITING -> {
          waiting++;
          inFlight += kind == Counted.IN_FLIGHT ? 1 : 0;
          oldestWaiting = oldestWaiting == null || created.isBefore(oldestWaiting) ? created : oldestWaiting;
        }
      }
    }

    OutboxStats stats() {
      return new OutboxStats(waiting, blocked, inFlight, quarantined, oldestWaiting, oldestBlocked);
    }
  }

  @Override
  public Retention retention() {
    return retention;
  }

  // ------------------------------------------------------------------------------------------ entry face

  @Override
  public OutboxEntry enqueue(Message message) {
    limits.check(message);
    synchronized (lock) {
      if (byId.containsKey(message.id())) {
        throw new DuplicateMessageException(message.id(), null);
      }
      return insert(OutboxEntry.pending(message, clock.instant()));
    }
  }

  @Override
  public Optional<OutboxEntry> find(UUID id) {
    synchronized (lock) {
      Row row = byId.get(id);
      return row == null ? Optional.empty() : Optional.of(row.entry);
    }
  }

  @Override
  public List<OutboxEntry> findPending(int max) {
    EntryTransitions.checkMax(max);
    List<OutboxEntry> found = new ArrayList<>();
    if (max == 0) {
      return found;
    }
    synchronized (lock) {
      for (Row row : undelivered.values()) {
        if (row.entry.status() == EntryStatus.PENDING) {
          found.add(row.entry);
          if (found.size() == max) {
            break;
          }
        }
      }
    }
    return found;
  }

  @Override
  public List<OutboxEntry> findRetryReady(Instant now, int max) {
    EntryTransitions.checkMax(max);
    List<OutboxEntry> found = new ArrayList<>();
    if (max == 0) {
      return found;
    }
    synchronized (lock) {
      for (Row row : undelivered.values()) {
        if (row.entry.status() == EntryStatus.FAILED && !row.entry.availableAt().isAfter(now)) {
          found.add(row.entry);
          if (found.size() == max) {
            break;
          }
        }
      }
    }
    return found;
  }

  @Override
  public OutboxEntry markDelivered(OutboxEntry entry, @Nullable String result) {
    synchronized (lock) {
      Row row = current(entry);
      EntryTransitions.checkMarkDelivered(row.entry);
      return retire(row, clock.instant(), result);
    }
  }

  @Override
  public OutboxEntry markFailed(OutboxEntry entry, String error, @Nullable Instant nextRetryAt) {
    synchronized (lock) {
      Row row = current(entry);
      EntryTransitions.checkMarkFailed(row.entry);
      OutboxEntry e = row.entry;
      EntryStatus status = nextRetryAt != null ? EntryStatus.FAILED : EntryStatus.PARKED;
      Instant next = nextRetryAt != null ? nextRetryAt : e.availableAt();
      return set(row, new OutboxEntry(e.message(), e.sequence(), status, e.attempts() + 1, clip(error),
          null, e.createdAt(), next, null, null, e.version() + 1, null,
          firstFailure(e)));
    }
  }

  @Override
  public OutboxEntry markDeadLettered(OutboxEntry entry, String error, @Nullable String reason) {
    synchronized (lock) {
      Row row = current(entry);
      EntryTransitions.checkMarkDeadLettered(row.entry);
      OutboxEntry e = row.entry;
      return set(row, new OutboxEntry(e.message(), e.sequence(), EntryStatus.QUARANTINED, e.attempts(), clip(error),
          clip(reason != null ? reason : error), e.createdAt(), e.availableAt(), null, null, e.version() + 1,
          QuarantineKind.DEAD_LETTERED, e.firstFailedAt()));
    }
  }

  @Override
  public OutboxEntry save(OutboxEntry given) {
    limits.check(given.message());
    OutboxEntry entry = EntryTransitions.normalizeSaved(given);
    synchronized (lock) {
      Row row = byId.get(entry.id());
      if (row == null && entry.version() != 0) {
        throw new EntryNotFoundException(entry.id()); // read earlier, row gone since: never bring it back
      }
      if (row == null) {
        OutboxEntry stored = insert(entry);
        if (stored.status() == EntryStatus.DELIVERED && retention.deletesOnDelivery()) {
          remove(byId.get(stored.id()));
        }
        return stored;
      }
      if (row.entry.version() != entry.version()) {
        throw new OptimisticConflictException(entry.id(), entry.version());
      }
      EntryTransitions.checkSave(row.entry, entry);
      OutboxEntry e = row.entry;
      OutboxEntry updated = new OutboxEntry(e.message(), e.sequence(), entry.status(), entry.attempts(),
          clip(entry.lastError()), clip(entry.quarantineReason()), e.createdAt(), entry.availableAt(),
          entry.deliveredAt(), clip(entry.deliveryResult()), e.version() + 1, entry.quarantineKind(),
          entry.firstFailedAt());
      if (updated.status() == EntryStatus.DELIVERED && retention.deletesOnDelivery()) {
        remove(row);
        return updated;
      }
      return set(row, updated);
    }
  }

  // ------------------------------------------------------------------------------------------ internals

  /** Applies a committed transaction: all or nothing, in the order written. */
  void commit(List<Message> messages) {
    if (messages.isEmpty()) {
      return;
    }
    synchronized (lock) {
      Set<UUID> ids = new HashSet<>();
      for (Message message : messages) {
        if (byId.containsKey(message.id()) || !ids.add(message.id())) {
          throw new DuplicateMessageException(message.id(), null);
        }
      }
      Instant now = clock.instant();
      for (Message message : messages) {
        insert(OutboxEntry.pending(message, now));
      }
    }
    for (Runnable listener : commitListeners) {
      listener.run();
    }
  }

  boolean contains(UUID id) {
    synchronized (lock) {
      return byId.containsKey(id);
    }
  }

  MessageLimits limits() {
    return limits;
  }

  private OutboxEntry insert(OutboxEntry entry) {
    long sequence = nextSequence++;
    Instant bound = entry.message().orderingKey().map(keyBounds::get).orElse(null);
    Instant availableAt = bound == null ? entry.availableAt() : later(entry.availableAt(), bound);
    OutboxEntry stored = new OutboxEntry(entry.message(), sequence, entry.status(), entry.attempts(),
        clip(entry.lastError()), clip(entry.quarantineReason()), entry.createdAt(), availableAt,
        entry.deliveredAt(), clip(entry.deliveryResult()), 1, entry.quarantineKind(), entry.firstFailedAt());
    Row row = new Row(stored);
    byId.put(stored.id(), row);
    (stored.status() == EntryStatus.DELIVERED ? delivered : undelivered).put(sequence, row);
    return stored;
  }

  /** @return the row when the claim still holds it, else {@code null} (lost) */
  private @Nullable Row fenced(Claim claim) {
    Row row = byId.get(claim.id());
    return row != null && claim.token().equals(row.claimToken) ? row : null;
  }

  /** @return the row when its version is the caller's */
  private Row current(OutboxEntry entry) {
    Row row = byId.get(entry.id());
    if (row == null) {
      throw new EntryNotFoundException(entry.id());
    }
    if (row.entry.version() != entry.version()) {
      throw new OptimisticConflictException(entry.id(), entry.version());
    }
    return row;
  }

  private OutboxEntry retire(Row row, Instant now, @Nullable String result) {
    OutboxEntry e = row.entry;
    OutboxEntry done = new OutboxEntry(e.message(), e.sequence(), EntryStatus.DELIVERED, e.attempts(), e.lastError(),
        null, e.createdAt(), e.availableAt(), now, clip(result), e.version() + 1, null, e.firstFailedAt());
    if (retention.deletesOnDelivery()) {
      remove(row);
      return done;
    }
    return set(row, done);
  }

  /** Replaces a row's entry, releases its claim, and files it under delivered or undelivered. */
  private OutboxEntry set(Row row, OutboxEntry entry) {
    boolean wasDelivered = row.entry.status() == EntryStatus.DELIVERED;
    boolean isDelivered = entry.status() == EntryStatus.DELIVERED;
    row.entry = entry;
    row.claimToken = null;
    row.leaseUntil = null;
    if (wasDelivered != isDelivered) {
      (wasDelivered ? delivered : undelivered).remove(entry.sequence());
      (isDelivered ? delivered : undelivered).put(entry.sequence(), row);
    }
    return entry;
  }

  private void remove(@Nullable Row row) {
    if (row == null) {
      return;
    }
    byId.remove(row.entry.id());
    undelivered.remove(row.entry.sequence());
    delivered.remove(row.entry.sequence());
  }

  private static OutboxEntry bump(OutboxEntry e) {
    return new OutboxEntry(e.message(), e.sequence(), e.status(), e.attempts(), e.lastError(), e.quarantineReason(),
        e.createdAt(), e.availableAt(), e.deliveredAt(), e.deliveryResult(), e.version() + 1, e.quarantineKind(),
        e.firstFailedAt());
  }

  private static @Nullable String clip(@Nullable String text) {
    return text == null || text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
  }

  /** Configures an {@link InMemoryOutboxStore}. Not thread-safe. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private Retention retention = Retention.deleteOnDelivery();
    private MessageLimits limits = MessageLimits.defaults();

    private Builder() {}

    /**
     * @param source time for creation and entry-face timestamps; default the UTC system clock
     * @return this builder
     */
    public Builder withClock(Clock source) {
      this.clock = Objects.requireNonNull(source, "clock");
      return this;
    }

    /**
     * @param policy what happens to delivered entries; default delete on delivery
     * @return this builder
     */
    public Builder withRetention(Retention policy) {
      this.retention = Objects.requireNonNull(policy, "retention");
      return this;
    }

    /**
     * @param messageLimits the limits writes must respect; default {@link MessageLimits#defaults()}
     * @return this builder
     */
    public Builder withLimits(MessageLimits messageLimits) {
      this.limits = Objects.requireNonNull(messageLimits, "limits");
      return this;
    }

    /** @return the store */
    public InMemoryOutboxStore build() {
      return new InMemoryOutboxStore(this);
    }
  }
}
