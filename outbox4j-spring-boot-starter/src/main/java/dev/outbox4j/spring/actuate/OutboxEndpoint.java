package dev.outbox4j.spring.actuate;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.jdbc.doctor.DoctorReport;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineGroup;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.ReasonPattern;
import dev.outbox4j.spi.WaitingSelector;
import java.security.Principal;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code outbox4j} Actuator endpoint: what waits for an operator (never payloads), grouped by failure; the relay's
 * paused destinations; the operator's actions on entries, groups, destinations and keys; and the audit log of those
 * actions.
 *
 * <ul>
 *   <li>read: {@code GET /actuator/outbox4j?limit=&after=&group=} lists entries waiting for an operator in sequence
 *       order, at most {@code limit} (default 100, at most {@value QuarantineQuery#MAX_LIMIT}) after sequence
 *       {@code after}, of one {@linkplain QuarantineGroup group} when {@code group} names one, with their total, and the
 *       destinations the relay has paused;
 *   <li>read: {@code GET /actuator/outbox4j/groups} the groups by failure (destination, kind, reason with numbers and
 *       ids left out), largest first, with counts; {@code /audit?limit=} the latest operator actions;
 *       {@code /pauses} the destinations paused by an operator; {@code /doctor} what in the database's settings
 *       makes the outbox unsafe or slow (isolation, commit durability, a pooler in front, the sequence cache, the
 *       idle-transaction timeout against the lease, clock skew, the schema version), each finding with its fix;
 *   <li>write / delete: {@code POST} / {@code DELETE /actuator/outbox4j/{id}} requeues / discards one entry;
 *   <li>write / delete: {@code POST} / {@code DELETE /actuator/outbox4j} with a selection ({@code all=true}, or any of
 *       {@code key}, {@code destination}, {@code reason}, {@code kind}, {@code id}, which must all match) requeues /
 *       discards every selected entry;
 *   <li>write: {@code POST /actuator/outbox4j/destinations/{destination}} with {@code action} {@code pause},
 *       {@code resume}, {@code park} or {@code discard} (the destination's waiting entries, of one {@code key} if
 *       given); {@code POST /actuator/outbox4j/keys/{key}} with {@code action} {@code park} or {@code discard} (the
 *       key's waiting entries, for one {@code destination} if given); {@code POST /actuator/outbox4j/groups/{id}} with
 *       {@code action} {@code requeue} or {@code discard}.
 * </ul>
 *
 * <h2>Counting first</h2>
 * Every action takes {@code dryRun=true}, which changes nothing and answers how many entries (for pause and resume:
 * destinations) it would change now, and {@code expectedCount=N}, which refuses the action, changing nothing, when
 * that count is no longer N, and otherwise changes at most N. A script that counts first and passes the count it
 * showed never changes more than was shown.
 *
 * <p>Every action that changed something is recorded in the store's audit log ({@link OutboxStore#recordOperatorAction})
 * under the Spring Security principal's name, or {@code actuator} without one. A bulk action works in batches of
 * {@value #BATCH} entries per transaction and needs at least one criterion or {@code all=true}. A malformed id, an
 * unknown kind or action, or a missing criterion is answered 400 ({@link InvalidEndpointRequestException}).
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
  /** Who acts through the endpoint when Spring Security names no principal. */
  public static final String ANONYMOUS_ACTOR = "actuator";

  private final OutboxStore store;
  private final Clock clock;
  private final Supplier<List<DestinationStatus>> pausedDestinations;
  private final Supplier<Optional<DoctorReport>> doctor;

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
    this(store, clock, pausedDestinations, Optional::empty);
  }

  /**
   * @param store the outbox store
   * @param clock the time a requeued entry becomes available
   * @param pausedDestinations the relay's paused destinations ({@code relay::pausedDestinations}); empty without one
   * @param doctor runs the database doctor's checks for the {@code doctor} view; empty where there is none (a store
   *     that is not JDBC)
   */
  public OutboxEndpoint(OutboxStore store, Clock clock, Supplier<List<DestinationStatus>> pausedDestinations,
      Supplier<Optional<DoctorReport>> doctor) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.pausedDestinations = Objects.requireNonNull(pausedDestinations, "pausedDestinations");
    this.doctor = Objects.requireNonNull(doctor, "doctor");
  }

  // ------------------------------------------------------------------------------------------------------ reads

  /**
   * @param limit the most entries to list; default 100
   * @param after list entries after this sequence; default from the start
   * @param group list only the entries of the group with this id; default every entry waiting for an operator
   * @return the entries waiting for an operator, their total, and the paused destinations
   * @throws InvalidEndpointRequestException if limit is out of range (400)
   */
  @ReadOperation
  public QuarantineReport quarantined(@Nullable Integer limit, @Nullable Long after, @Nullable String group) {
    int size = limit == null ? DEFAULT_LIMIT : limit;
    if (size < 1 || size > QuarantineQuery.MAX_LIMIT) {
      throw invalid("limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + size);
    }
    QuarantineSelector selector = group == null || group.isBlank() ? QuarantineSelector.all() : groupSelector(group);
    List<OutboxEntry> page = store.quarantined(selector, new QuarantineQuery(size, after));
    return new QuarantineReport(page.stream().map(QuarantinedEntry::of).toList(),
        pausedDestinations.get().stream().map(PausedDestination::of).toList(), store.countQuarantined(selector));
  }

  /**
   * {@link #quarantined(Integer, Long, String)} of every entry waiting for an operator.
   *
   * @param limit the most entries to list; default 100
   * @param after list entries after this sequence; default from the start
   * @return the entries, their total, and the paused destinations
   */
  public QuarantineReport quarantined(@Nullable Integer limit, @Nullable Long after) {
    return quarantined(limit, after, null);
  }

  /**
   * @param view {@code groups} (the groups by failure, largest first, with counts), {@code audit} (the latest operator
   *     actions, newest first), {@code pauses} (the destinations paused by an operator) or {@code doctor} (what in
   *     the database's settings makes the outbox unsafe or slow, each finding with its fix; checked afresh)
   * @param limit for {@code audit}, the most actions to list (default 20)
   * @return the view
   * @throws InvalidEndpointRequestException for another view (400)
   */
  @ReadOperation
  public Object view(@Selector String view, @Nullable Integer limit) {
    return switch (view) {
      case "groups" -> {
        QuarantineGroups found = store.quarantineGroups(QuarantineGroups.MAX_GROUPED);
        yield new GroupsReport(found.total(), found.grouped(), found.complete(),
            found.groups().stream().map(GroupView::of).toList());
      }
      case "audit" -> {
        int size = limit == null ? 20 : limit;
        if (size < 1 || size > QuarantineQuery.MAX_LIMIT) {
          throw invalid("limit must be 1.." + QuarantineQuery.MAX_LIMIT + ", was " + size);
        }
        yield store.operatorActions(size);
      }
      case "pauses" -> store.operatorPauses();
      case "doctor" -> doctor.get().orElseThrow(() -> invalid("no doctor for this store: it checks JDBC stores"));
      default -> throw invalid("no view '" + view + "'; there are groups, audit, pauses and doctor");
    };
  }

  // ------------------------------------------------------------------------------------------------------ one entry

  /**
   * Requeues one entry. It takes no body, so {@code POST /actuator/outbox4j/{id}} needs no content type; Actuator then
   * passes no principal either (a web operation that takes one must take a JSON body), so the audit log names the
   * actor {@value #ANONYMOUS_ACTOR}. To be named, and for a dry run, requeue it as a selection:
   * {@code POST /actuator/outbox4j} with {@code {"id": "..."}}.
   *
   * @param id the entry's id
   * @return whether a quarantined or parked entry with that id was requeued
   * @throws InvalidEndpointRequestException if the id is not a UUID (400)
   */
  @WriteOperation
  public ActionResult requeue(@Selector String id) {
    return single(id, true, false, SecurityContext.NONE);
  }

  /**
   * @param id the entry's id
   * @param dryRun {@code true} to change nothing and answer whether the entry waits for an operator
   * @param security who asks, for the audit log
   * @return whether a quarantined or parked entry with that id was discarded (or, on a dry run, would be)
   * @throws InvalidEndpointRequestException if the id is not a UUID (400)
   */
  @DeleteOperation
  public ActionResult discard(@Selector String id, @Nullable Boolean dryRun, SecurityContext security) {
    return single(id, false, Boolean.TRUE.equals(dryRun), security);
  }

  /**
   * {@link #discard(String, Boolean, SecurityContext)} for a caller without a principal, never a dry run.
   *
   * @param id the entry's id
   * @return whether it was discarded
   */
  public ActionResult discard(String id) {
    return discard(id, null, SecurityContext.NONE);
  }

  private ActionResult single(String id, boolean requeue, boolean dryRun, SecurityContext security) {
    UUID entry = entryId(id);
    String action = requeue ? "requeue" : "discard";
    int count = store.countQuarantined(QuarantineSelector.ofIds(List.of(entry)));
    if (dryRun) {
      return new ActionResult(entry.toString(), action, false, true, count);
    }
    boolean applied = requeue ? store.requeue(entry, clock.instant()) : store.discard(entry);
    if (applied) {
      record(security, requeue ? OperatorAction.REQUEUE : OperatorAction.DISCARD, "entry " + entry, 1, "");
    }
    return new ActionResult(entry.toString(), action, applied, false, count);
  }

  // ------------------------------------------------------------------------------------------------------ selections

  /**
   * Requeues every selected entry waiting for an operator (quarantined or parked).
   *
   * @param all {@code true} to select every entry; needed when no criterion is given
   * @param key only entries of this ordering key
   * @param destination only entries for this destination
   * @param reason only entries whose reason contains this text
   * @param kind only quarantined entries of this {@link QuarantineKind}
   * @param id only the entry with this id
   * @param dryRun {@code true} to change nothing and answer how many are selected
   * @param expectedCount refuse, changing nothing, unless exactly this many are selected; change at most this many
   * @param security who asks, for the audit log
   * @return how many were selected and requeued
   * @throws InvalidEndpointRequestException if nothing is selected, or a criterion is empty or an unknown kind (400)
   */
  @WriteOperation
  public BulkResult requeueSelected(@Nullable Boolean all, @Nullable String key, @Nullable String destination,
      @Nullable String reason, @Nullable String kind, @Nullable String id, @Nullable Boolean dryRun,
      @Nullable Integer expectedCount, SecurityContext security) {
    QuarantineSelector selector = selector(all, key, destination, reason, kind, id);
    Instant now = clock.instant();
    return selected("requeue", selector, dryRun, expectedCount, security,
        limit -> store.requeueAll(selector, now, limit));
  }

  /**
   * {@link #requeueSelected(Boolean, String, String, String, String, String, Boolean, Integer, SecurityContext)}
   * without an id or a count, for a caller without a principal.
   *
   * @param all {@code true} to select every entry
   * @param key the ordering key, or {@code null}
   * @param destination the destination, or {@code null}
   * @param reason a fragment of the reason, or {@code null}
   * @param kind a kind, or {@code null}
   * @return how many were requeued
   */
  public BulkResult requeueSelected(@Nullable Boolean all, @Nullable String key, @Nullable String destination,
      @Nullable String reason, @Nullable String kind) {
    return requeueSelected(all, key, destination, reason, kind, null, null, null, SecurityContext.NONE);
  }

  /**
   * Discards every selected entry waiting for an operator; the parameters are those of
   * {@link #requeueSelected(Boolean, String, String, String, String, String, Boolean, Integer, SecurityContext)}.
   *
   * @param all {@code true} to select every entry; needed when no criterion is given
   * @param key only entries of this ordering key
   * @param destination only entries for this destination
   * @param reason only entries whose reason contains this text
   * @param kind only quarantined entries of this {@link QuarantineKind}
   * @param id only the entry with this id
   * @param dryRun {@code true} to change nothing and answer how many are selected
   * @param expectedCount refuse, changing nothing, unless exactly this many are selected; change at most this many
   * @param security who asks, for the audit log
   * @return how many were selected and discarded
   * @throws InvalidEndpointRequestException if nothing is selected, or a criterion is empty or an unknown kind (400)
   */
  @DeleteOperation
  public BulkResult discardSelected(@Nullable Boolean all, @Nullable String key, @Nullable String destination,
      @Nullable String reason, @Nullable String kind, @Nullable String id, @Nullable Boolean dryRun,
      @Nullable Integer expectedCount, SecurityContext security) {
    QuarantineSelector selector = selector(all, key, destination, reason, kind, id);
    return selected("discard", selector, dryRun, expectedCount, security, limit -> store.discardAll(selector, limit));
  }

  /**
   * {@link #discardSelected(Boolean, String, String, String, String, String, Boolean, Integer, SecurityContext)}
   * without an id or a count, for a caller without a principal.
   *
   * @param all {@code true} to select every entry
   * @param key the ordering key, or {@code null}
   * @param destination the destination, or {@code null}
   * @param reason a fragment of the reason, or {@code null}
   * @param kind a kind, or {@code null}
   * @return how many were discarded
   */
  public BulkResult discardSelected(@Nullable Boolean all, @Nullable String key, @Nullable String destination,
      @Nullable String reason, @Nullable String kind) {
    return discardSelected(all, key, destination, reason, kind, null, null, null, SecurityContext.NONE);
  }

  private BulkResult selected(String action, QuarantineSelector selector, @Nullable Boolean dryRun,
      @Nullable Integer expectedCount, SecurityContext security, IntUnaryOperator batch) {
    int count = store.countQuarantined(selector);
    if (Boolean.TRUE.equals(dryRun)) {
      return new BulkResult(action, 0, count, true, null);
    }
    if (expectedCount != null && expectedCount != count) {
      return new BulkResult(action, 0, count, false, refusal(count, expectedCount));
    }
    long changed = inBatches(expectedCount, batch);
    if (changed > 0) {
      record(security, action, "entries waiting for an operator: " + selector.describe(), changed,
          expectedCount == null ? "" : "expected " + expectedCount);
    }
    return new BulkResult(action, changed, count, false, null);
  }

  // ------------------------------------------------------------------------------------------------------ scopes

  /**
   * An action on a destination, a key's waiting entries or a group.
   *
   * @param scope {@code destinations}, {@code keys} or {@code groups}
   * @param name the destination, the ordering key, or the group's id
   * @param action for a destination {@code pause}, {@code resume}, {@code park} or {@code discard}; for a key
   *     {@code park} or {@code discard}; for a group {@code requeue} or {@code discard}
   * @param dryRun {@code true} to change nothing and answer the count the action would change
   * @param expectedCount refuse, changing nothing, unless the count is exactly this; change at most this many
   * @param reason why, for a pause (shown to other operators)
   * @param key for a destination's {@code park} or {@code discard}: only the waiting entries of this key
   * @param destination for a key's {@code park} or {@code discard}: only the waiting entries for this destination
   * @param security who asks, for the audit log
   * @return what was counted and changed, or why it was refused
   * @throws InvalidEndpointRequestException for an unknown scope or action (400)
   */
  @WriteOperation
  public OperatorResult operate(@Selector String scope, @Selector String name, String action,
      @Nullable Boolean dryRun, @Nullable Integer expectedCount, @Nullable String reason, @Nullable String key,
      @Nullable String destination, SecurityContext security) {
    boolean dry = Boolean.TRUE.equals(dryRun);
    return switch (scope + "/" + action.toLowerCase(Locale.ROOT)) {
      case "destinations/pause", "destinations/resume" ->
          pause(name, action.equalsIgnoreCase("pause"), reason, dry, expectedCount, security);
      case "destinations/park", "destinations/discard" ->
          waiting(waitingSelector(key, name), action.equalsIgnoreCase("park"), dry, expectedCount, security);
      case "keys/park", "keys/discard" ->
          waiting(waitingSelector(name, destination), action.equalsIgnoreCase("park"), dry, expectedCount, security);
      case "groups/requeue", "groups/discard" ->
          group(name, action.equalsIgnoreCase("requeue"), dry, expectedCount, security);
      default -> throw invalid("no action '" + action + "' on " + scope + "; destinations take pause, resume, park"
          + " and discard, keys park and discard, groups requeue and discard");
    };
  }

  private OperatorResult pause(String destination, boolean pausing, @Nullable String reason, boolean dryRun,
      @Nullable Integer expectedCount, SecurityContext security) {
    String verb = pausing ? OperatorAction.PAUSE : OperatorAction.RESUME;
    String target = "destination '" + destination + "'";
    boolean paused = store.operatorPauses().stream().anyMatch(p -> p.destination().equals(destination));
    int count = pausing != paused ? 1 : 0;
    if (dryRun) {
      return OperatorResult.dryRun(verb, target, count);
    }
    if (expectedCount != null && expectedCount != count) {
      return OperatorResult.refused(verb, target, count, refusal(count, expectedCount));
    }
    String who = actor(security);
    boolean changed;
    try {
      changed = pausing ? store.pauseDestination(destination, who, reason == null ? "" : reason, clock.instant())
          : store.resumeDestination(destination);
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
    if (changed) {
      record(security, verb, target, 0, pausing ? "by " + who + (reason == null || reason.isEmpty() ? "" : ": "
          + reason) : "");
    }
    return OperatorResult.applied(verb, target, count, changed ? 1 : 0);
  }

  private OperatorResult waiting(WaitingSelector selector, boolean park, boolean dryRun,
      @Nullable Integer expectedCount, SecurityContext security) {
    String verb = park ? OperatorAction.PARK : OperatorAction.DISCARD_WAITING;
    String target = "waiting entries" + (selector.orderingKey() == null ? "" : " of key '" + selector.orderingKey()
        + "'") + (selector.destination() == null ? "" : " for destination '" + selector.destination() + "'");
    Instant now = clock.instant();
    int count = store.countWaiting(selector, now);
    if (dryRun) {
      return OperatorResult.dryRun(verb, target, count);
    }
    if (expectedCount != null && expectedCount != count) {
      return OperatorResult.refused(verb, target, count, refusal(count, expectedCount));
    }
    long changed = inBatches(expectedCount,
        limit -> park ? store.parkWaiting(selector, now, limit) : store.discardWaiting(selector, now, limit));
    if (changed > 0) {
      record(security, verb, target, changed, expectedCount == null ? "" : "expected " + expectedCount);
    }
    return OperatorResult.applied(verb, target, count, changed);
  }

  private OperatorResult group(String id, boolean requeue, boolean dryRun, @Nullable Integer expectedCount,
      SecurityContext security) {
    String verb = requeue ? OperatorAction.REQUEUE : OperatorAction.DISCARD;
    QuarantineSelector selector = groupSelector(id);
    int count = store.countQuarantined(selector);
    List<OutboxEntry> one = store.quarantined(selector, QuarantineQuery.first(1));
    String target = one.isEmpty() ? "group " + id : describeGroup(one.get(0));
    if (dryRun) {
      return OperatorResult.dryRun(verb, target, count);
    }
    if (expectedCount != null && expectedCount != count) {
      return OperatorResult.refused(verb, target, count, refusal(count, expectedCount));
    }
    Instant now = clock.instant();
    long changed = inBatches(expectedCount,
        limit -> requeue ? store.requeueAll(selector, now, limit) : store.discardAll(selector, limit));
    if (changed > 0) {
      record(security, verb, target, changed, expectedCount == null ? "" : "expected " + expectedCount);
    }
    return OperatorResult.applied(verb, target, count, changed);
  }

  private static String describeGroup(OutboxEntry entry) {
    QuarantineGroups.Member member = QuarantineGroups.Member.of(entry);
    return "group " + member.destination() + " / " + member.kindLabel() + " / " + ReasonPattern.of(member.reason());
  }

  // ------------------------------------------------------------------------------------------------------ helpers

  /** Runs batches until one comes back short, or until {@code most} entries changed; returns how many changed. */
  private static long inBatches(@Nullable Integer most, IntUnaryOperator batch) {
    long limit = most == null ? Long.MAX_VALUE : most;
    long total = 0;
    while (total < limit) {
      int size = (int) Math.min(BATCH, limit - total);
      int changed = batch.applyAsInt(size);
      total += changed;
      if (changed < size) {
        break;
      }
    }
    return total;
  }

  private static String refusal(int count, int expected) {
    return "the count changed: " + count + " now, " + expected + " expected; nothing was changed";
  }

  private static String actor(SecurityContext security) {
    Principal principal = security.getPrincipal();
    return principal == null || principal.getName() == null || principal.getName().isBlank() ? ANONYMOUS_ACTOR
        : principal.getName();
  }

  /** Records an applied action; a failure to record is logged, the change stands. */
  private void record(SecurityContext security, String action, String target, long entries, String detail) {
    try {
      store.recordOperatorAction(OperatorAction.of(clock.instant(), actor(security), action, target, entries, detail));
    } catch (OutboxException e) {
      System.getLogger(OutboxEndpoint.class.getName()).log(System.Logger.Level.WARNING,
          "the " + action + " of " + target + " was applied but not recorded in the audit log", e);
    }
  }

  private static InvalidEndpointRequestException invalid(String message) {
    return new InvalidEndpointRequestException(message, message);
  }

  private static UUID entryId(String id) {
    try {
      return UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      throw invalid("not an entry id: '" + (id.length() > 40 ? id.substring(0, 40) + "…" : id) + "'");
    }
  }

  private static QuarantineSelector groupSelector(String id) {
    try {
      return new QuarantineSelector(null, null, null, null, id, null);
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
  }

  private static WaitingSelector waitingSelector(@Nullable String key, @Nullable String destination) {
    try {
      return new WaitingSelector(key == null || key.isEmpty() ? null : key,
          destination == null || destination.isEmpty() ? null : destination);
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
  }

  private static QuarantineSelector selector(@Nullable Boolean all, @Nullable String key,
      @Nullable String destination, @Nullable String reason, @Nullable String kind, @Nullable String id) {
    QuarantineKind parsedKind = null;
    if (kind != null) {
      try {
        parsedKind = QuarantineKind.valueOf(kind);
      } catch (IllegalArgumentException e) {
        throw invalid("kind must be one of " + java.util.Arrays.toString(QuarantineKind.values()) + ", was '" + kind
            + "'");
      }
    }
    if (key == null && destination == null && reason == null && parsedKind == null && id == null
        && !Boolean.TRUE.equals(all)) {
      throw invalid("select entries with key, destination, reason, kind or id, or set all=true for every entry");
    }
    try {
      return new QuarantineSelector(key, destination, reason, parsedKind, null,
          id == null ? null : java.util.Set.of(entryId(id)));
    } catch (IllegalArgumentException e) {
      throw invalid(e.getMessage());
    }
  }

  // ------------------------------------------------------------------------------------------------------ answers

  /**
   * What a bulk operator action counted and did.
   *
   * @param action {@code requeue} or {@code discard}
   * @param entries how many entries it changed; 0 on a dry run or a refusal
   * @param matched how many entries the selection matched when it was counted
   * @param dryRun whether nothing was meant to change
   * @param refused why the action was refused (the count was not the expected one), or {@code null}
   */
  public record BulkResult(String action, long entries, long matched, boolean dryRun, @Nullable String refused) {
    /**
     * An applied action.
     *
     * @param action {@code requeue} or {@code discard}
     * @param entries how many entries it changed
     */
    public BulkResult(String action, long entries) {
      this(action, entries, entries, false, null);
    }
  }

  /**
   * What an action on a destination, key or group counted and did.
   *
   * @param action the action, as the audit log names it ({@code pause}, {@code resume}, {@code park},
   *     {@code discard-waiting}, {@code requeue}, {@code discard})
   * @param target what it acts on, in words
   * @param dryRun whether nothing was meant to change
   * @param count how many entries (for pause and resume: destinations) it would change when counted
   * @param changed how many it changed; 0 on a dry run or a refusal
   * @param refused why it was refused (the count was not the expected one), or {@code null}
   */
  public record OperatorResult(String action, String target, boolean dryRun, long count, long changed,
      @Nullable String refused) {
    static OperatorResult dryRun(String action, String target, long count) {
      return new OperatorResult(action, target, true, count, 0, null);
    }

    static OperatorResult refused(String action, String target, long count, String why) {
      return new OperatorResult(action, target, false, count, 0, why);
    }

    static OperatorResult applied(String action, String target, long count, long changed) {
      return new OperatorResult(action, target, false, count, changed, null);
    }
  }

  /**
   * The groups by failure.
   *
   * @param total how many entries wait for an operator
   * @param grouped how many of them, the oldest, are in the groups
   * @param complete whether every one is
   * @param groups largest first
   */
  public record GroupsReport(long total, int grouped, boolean complete, List<GroupView> groups) {}

  /**
   * One group by failure, without its ids.
   *
   * @param id the group's id, for {@code ?group=} and {@code /groups/{id}}
   * @param destination the destination
   * @param status {@code QUARANTINED} or {@code PARKED}
   * @param kind the quarantine kind, or {@code PARKED}
   * @param pattern the reason with numbers and ids left out
   * @param example the reason of its oldest entry
   * @param count how many entries it holds
   */
  public record GroupView(String id, String destination, String status, String kind, String pattern, String example,
      int count) {
    static GroupView of(QuarantineGroup group) {
      return new GroupView(group.id(), group.destination(), group.status().name(), group.kindLabel(), group.pattern(),
          group.example(), group.count());
    }
  }

  /**
   * The entries waiting for an operator of one page, their total, and the destinations paused now.
   *
   * @param entries in sequence order
   * @param pausedDestinations the destinations the relay has paused, by name; empty while every one flows
   * @param total how many entries the page is a page of
   */
  public record QuarantineReport(List<QuarantinedEntry> entries, List<PausedDestination> pausedDestinations,
      long total) {
    /**
     * @param entries in sequence order
     * @param pausedDestinations the paused destinations
     */
    public QuarantineReport(List<QuarantinedEntry> entries, List<PausedDestination> pausedDestinations) {
      this(entries, pausedDestinations, entries.size());
    }

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
   * @param nextSendAt when its entries are next sent, never in the past when read; {@code null} while a probe is under
   *     way, when it goes with its next entry written, and for an operator pause ({@link DestinationStatus#nextSendAt})
   * @param probing whether a probe was sent and its answers are awaited
   */
  public record PausedDestination(String destination, String cause, Instant pausedSince,
      @Nullable Instant nextProbeAt, String lastError, int failedProbes, @Nullable Instant nextSendAt,
      boolean probing) {
    static PausedDestination of(DestinationStatus status) {
      return new PausedDestination(status.destination(), status.cause().name(), status.pausedSince(),
          status.nextProbeAt(), status.lastError(), status.failedProbes(), status.nextSendAt(), status.probing());
    }
  }

  /**
   * One entry waiting for an operator, without its payload or headers.
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
   * What an operator action on one entry did.
   *
   * @param id the entry's id
   * @param action {@code requeue} or {@code discard}
   * @param applied {@code false} when no quarantined or parked entry has that id, and on a dry run
   * @param dryRun whether nothing was meant to change
   * @param count 1 when the entry waited for an operator when counted, else 0
   */
  public record ActionResult(String id, String action, boolean applied, boolean dryRun, int count) {
    /**
     * An applied action.
     *
     * @param id the entry's id
     * @param action {@code requeue} or {@code discard}
     * @param applied whether it changed the entry
     */
    public ActionResult(String id, String action, boolean applied) {
      this(id, action, applied, false, applied ? 1 : 0);
    }
  }
}
