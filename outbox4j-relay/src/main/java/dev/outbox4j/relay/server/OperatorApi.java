package dev.outbox4j.relay.server;

import com.sun.net.httpserver.HttpExchange;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.relay.runtime.StatsSampler;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineGroup;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.ReasonPattern;
import dev.outbox4j.spi.WaitingSelector;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The dashboard's operator face: what waits for an operator (grouped by failure, each group's entries page by page),
 * the operator's actions on it and on destinations, and the audit log of those actions.
 *
 * <h2>Why every action takes two requests</h2>
 * A click must never destroy data on its own, and a count shown to the operator must be the count that is changed.
 * So every action ({@code POST /api/actions/<name>}) is asked first with {@code dryRun=true}, which changes nothing
 * and answers the count it would change now; the page shows that count and asks; the second request carries the count
 * the operator confirmed ({@code confirm=N}) and is refused with 409, changing nothing and answering the new count,
 * when the count is no longer N. A request with neither is refused with 400. Bulk changes never exceed the confirmed
 * count.
 *
 * <p>A group is a moving target (entries join it as they fail and leave it as others act), so a group action carries
 * the ids the dry run listed and changes only those of them still in the group: never an entry the operator did not
 * see, and its answer says how many had left meanwhile ({@link QuarantineSelector#withIds}).
 *
 * <p>Every action that changed something is recorded in the audit log ({@link OutboxStore#recordOperatorAction}) with
 * the admin token's name as the actor; a failure to record is reported in the answer, the change stands.
 *
 * <p>Grouping reads up to {@value QuarantineGroups#MAX_GROUPED} rows (a few short columns each), so one grouping serves
 * every open dashboard for two seconds (and a group's page takes its total from it); an action, and a group's dry run,
 * read afresh.
 *
 * <p>Thread-safe: its only state is that grouping, replaced whole.
 */
final class OperatorApi {
  /** Entries changed per unit of work of a bulk action. */
  static final int BATCH = 500;
  /** Largest body of a group action: {@value QuarantineSelector#MAX_IDS} ids of 36 characters and a line break. */
  private static final int MAX_BODY = QuarantineSelector.MAX_IDS * 38;
  private static final int PAYLOAD_SHOWN = 2048;
  private static final int DEFAULT_PAGE = 100;
  /** How long one grouping serves every open dashboard; an action makes the next read group afresh. */
  private static final java.time.Duration GROUPS_FRESH = java.time.Duration.ofSeconds(2);
  private static final int DEFAULT_GROUPS = 20;

  private final String outbox;
  private final OutboxStore store;
  private final StatsSampler sampler;
  private final AdminToken token;
  private final boolean showPayloads;
  private final Clock clock;
  /** The last grouping and when it was read: many open dashboards group once per {@link #GROUPS_FRESH}. */
  private volatile @Nullable Grouping grouping;

  private record Grouping(Instant at, QuarantineGroups groups) {}

  OperatorApi(String outbox, OutboxStore store, StatsSampler sampler, AdminToken token, boolean showPayloads,
      Clock clock) {
    this.outbox = outbox;
    this.store = store;
    this.sampler = sampler;
    this.token = token;
    this.showPayloads = showPayloads;
    this.clock = clock;
  }

  /** A refusal of a request: its status and the message shown to the operator. */
  private static final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final transient Map<String, Object> body;

    Refusal(int status, String message) {
      this(status, message, Map.of());
    }

    Refusal(int status, String message, Map<String, Object> more) {
      super(message, null, false, false);
      this.status = status;
      this.body = new LinkedHashMap<>();
      body.put("error", message);
      body.putAll(more);
    }
  }

  /** Runs a handler, turning a {@link Refusal} into its answer. */
  void serve(HttpExchange exchange, DashboardServer.Handler handler) throws IOException {
    try {
      handler.handle(exchange);
    } catch (Refusal refusal) {
      DashboardServer.sendJson(exchange, refusal.status, refusal.body);
    }
  }

  // ---------------------------------------------------------------------------------------------------- reads

  /** @return the groups, read at most once per {@link #GROUPS_FRESH} however many dashboards ask */
  private QuarantineGroups groups() {
    Instant now = clock.instant();
    Grouping last = grouping;
    if (last != null && !now.isAfter(last.at().plus(GROUPS_FRESH)) && !now.isBefore(last.at())) {
      return last.groups();
    }
    QuarantineGroups read = store.quarantineGroups(QuarantineGroups.MAX_GROUPED);
    grouping = new Grouping(now, read);
    return read;
  }

  /**
   * {@code GET /api/quarantined?limit=&after=&group=}: one page of the entries waiting for an operator, of one group
   * when {@code group} names one, with the total they are a page of.
   */
  void quarantined(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange);
    int limit = integer(query, "limit", DEFAULT_PAGE, 1, QuarantineQuery.MAX_LIMIT);
    Long after = query.containsKey("after") ? longValue(query, "after") : null;
    String group = query.get("group");
    QuarantineSelector selector = group == null || group.isEmpty() ? QuarantineSelector.all()
        : new QuarantineSelector(null, null, null, null, group, null);
    List<OutboxEntry> page = store.quarantined(selector, new QuarantineQuery(limit + 1, after));
    boolean more = page.size() > limit;
    List<Object> entries = new ArrayList<>();
    for (OutboxEntry entry : more ? page.subList(0, limit) : page) {
      entries.add(describe(entry));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("total", total(selector, group));
    body.put("more", more);
    body.put("showPayloads", showPayloads);
    body.put("entries", entries);
    DashboardServer.sendJson(exchange, 200, body);
  }

  /**
   * A group's total from the grouping when every entry is grouped (no read of its rows), else counted by the store.
   */
  private long total(QuarantineSelector selector, @Nullable String group) {
    if (group != null && !group.isEmpty()) {
      QuarantineGroups groups = groups();
      if (groups.complete()) {
        return groups.find(group).map(QuarantineGroup::count).orElse(0);
      }
    }
    return store.countQuarantined(selector);
  }

  private Map<String, Object> describe(OutboxEntry entry) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", entry.id().toString());
    row.put("sequence", entry.sequence());
    row.put("key", entry.message().orderingKey().orElse(null));
    row.put("destination", entry.message().destination());
    row.put("status", entry.status().name());
    row.put("attempts", entry.attempts());
    row.put("kind", QuarantineGroups.Member.of(entry).kindLabel()); // PARKED for a parked entry, as its group says
    row.put("reason", entry.quarantineReason());
    row.put("lastError", entry.lastError());
    row.put("createdAt", entry.createdAt().toString());
    if (showPayloads) {
      byte[] payload = entry.message().payload();
      String text = new String(payload, 0, Math.min(payload.length, PAYLOAD_SHOWN), StandardCharsets.UTF_8);
      row.put("payload", payload.length > PAYLOAD_SHOWN ? text + "…" : text);
    }
    return row;
  }

  /**
   * {@code GET /api/quarantine/groups?offset=&limit=}: the groups, largest first, one page of them, with how many
   * entries wait in all and how many of them (the oldest {@value QuarantineGroups#MAX_GROUPED}) are grouped.
   */
  void groups(HttpExchange exchange) throws IOException {
    Map<String, String> query = query(exchange);
    int offset = integer(query, "offset", 0, 0, Integer.MAX_VALUE);
    int limit = integer(query, "limit", DEFAULT_GROUPS, 1, QuarantineQuery.MAX_LIMIT);
    QuarantineGroups found = groups();
    List<Object> groups = new ArrayList<>();
    for (QuarantineGroup group : found.groups().subList(Math.min(offset, found.groups().size()),
        Math.min(offset + limit, found.groups().size()))) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", group.id());
      row.put("destination", group.destination());
      row.put("status", group.status().name());
      row.put("kind", group.kindLabel());
      row.put("pattern", group.pattern());
      row.put("example", group.example());
      row.put("count", group.count());
      groups.add(row);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("total", found.total());
    body.put("grouped", found.grouped());
    body.put("complete", found.complete());
    body.put("groupCount", found.groups().size());
    body.put("offset", offset);
    body.put("groups", groups);
    DashboardServer.sendJson(exchange, 200, body);
  }

  /**
   * {@code GET /api/audit?limit=&outbox=}: the latest operator actions on the outbox, newest first, each naming it (the
   * log lives in the outbox's own database).
   */
  void audit(HttpExchange exchange) throws IOException {
    int limit = integer(query(exchange), "limit", 20, 1, QuarantineQuery.MAX_LIMIT);
    List<Object> actions = new ArrayList<>();
    for (OperatorAction action : store.operatorActions(limit)) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("outbox", outbox);
      row.put("at", action.at().toString());
      row.put("actor", action.actor());
      row.put("action", action.action());
      row.put("target", action.target());
      row.put("entries", action.entries());
      row.put("detail", action.detail());
      actions.add(row);
    }
    DashboardServer.sendJson(exchange, 200, Map.of("actions", actions));
  }

  /** {@code GET /api/pauses}: the destinations an operator paused. */
  void pauses(HttpExchange exchange) throws IOException {
    List<Object> pauses = new ArrayList<>();
    for (OperatorPause pause : store.operatorPauses()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("destination", pause.destination());
      row.put("pausedAt", pause.pausedAt().toString());
      row.put("pausedBy", pause.pausedBy());
      row.put("reason", pause.reason());
      pauses.add(row);
    }
    DashboardServer.sendJson(exchange, 200, Map.of("pauses", pauses));
  }

  // ---------------------------------------------------------------------------------------------------- actions

  /**
   * {@code POST /api/entries/<id>/<requeue|discard>}: one entry's way out, as {@code requeue-entry} and
   * {@code discard-entry} with the query's {@code dryRun} or {@code confirm}.
   */
  void entryAction(HttpExchange exchange) throws IOException {
    String[] parts = exchange.getRequestURI().getPath().substring("/api/entries/".length()).split("/");
    if (parts.length != 2 || !(parts[1].equals("requeue") || parts[1].equals("discard"))) {
      throw new Refusal(404, "not found");
    }
    Map<String, String> query = new LinkedHashMap<>(query(exchange));
    query.put("id", parts[0]);
    act(exchange, parts[1] + "-entry", query);
  }

  /** {@code POST /api/actions/<name>?dryRun=true} or {@code ?confirm=N}: see the class comment. */
  void action(HttpExchange exchange) throws IOException {
    String name = exchange.getRequestURI().getPath().substring("/api/actions/".length());
    act(exchange, name, query(exchange));
  }

  private void act(HttpExchange exchange, String name, Map<String, String> query) throws IOException {
    if (!List.of("requeue-entry", "discard-entry", "requeue-group", "discard-group", "park-waiting",
        "discard-waiting", "pause", "resume").contains(name)) {
      throw new Refusal(404, "no such action: " + name);
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      exchange.getResponseHeaders().set("Allow", "POST");
      throw new Refusal(405, "use POST");
    }
    switch (token.check(exchange.getRequestHeaders().getFirst("Authorization"))) {
      case MISSING -> {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"outbox4j\"");
        throw new Refusal(401, "the admin token is required");
      }
      case WRONG -> throw new Refusal(403, "the admin token is wrong");
      case ACCEPTED -> {
        // go on
      }
    }
    boolean dryRun = "true".equals(query.get("dryRun"));
    Integer confirmed = query.containsKey("confirm") ? integer(query, "confirm", 0, 0, Integer.MAX_VALUE) : null;
    if (!dryRun && confirmed == null) {
      throw new Refusal(400, "ask for the count first (dryRun=true), then confirm it (confirm=N)");
    }
    Outcome outcome = switch (name) {
      case "requeue-entry", "discard-entry" -> entry(name, query, dryRun, confirmed);
      case "requeue-group", "discard-group" -> group(exchange, name, query, dryRun, confirmed);
      case "park-waiting", "discard-waiting" -> waiting(name, query, dryRun, confirmed);
      default -> pause(name, query, dryRun, confirmed);
    };
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("action", name);
    body.put("target", outcome.target);
    body.putAll(outcome.more);
    if (dryRun) {
      body.put("dryRun", true);
      body.put("count", outcome.count);
    } else {
      body.put("confirmed", confirmed);
      body.put("changed", outcome.changed);
      if (!name.equals("pause") && !name.equals("resume")) {
        body.put("result", Shortfall.explain(pastTense(name), outcome.changed, confirmed, "in the dry run",
            meanwhile(name)));
        if (outcome.changed < confirmed && !name.endsWith("-group")) { // a group's detail says how many left it
          outcome.detail += "; " + (confirmed - outcome.changed) + " changed meanwhile";
        }
      }
      sampler.sampleSoon();
      grouping = null;
      String unrecorded = outcome.changed > 0 ? record(outcome) : null;
      if (unrecorded != null) {
        body.put("auditError", unrecorded);
      }
    }
    DashboardServer.sendJson(exchange, 200, body);
  }

  /** @return an action on entries in the past tense, for its result: {@code requeued}, {@code parked} */
  private static String pastTense(String action) {
    String verb = action.substring(0, action.indexOf('-') < 0 ? action.length() : action.indexOf('-'));
    return switch (verb) {
      case "park" -> "parked";
      default -> verb + "ed"; // requeued, discarded
    };
  }

  /** @return what can have become of the counted entries an action did not change, after "were" */
  private static String meanwhile(String action) {
    if (action.endsWith("-waiting")) {
      return "claimed by a relay, delivered or changed by someone else";
    }
    if (action.endsWith("-group")) {
      return "requeued, discarded or changed by someone else";
    }
    return "requeued or discarded by someone else";
  }

  /** What an action found (dry run) or did. */
  private static final class Outcome {
    final String auditAction;
    final String target;
    final int count;
    long changed;
    String detail = "";
    final Map<String, Object> more = new LinkedHashMap<>();

    Outcome(String auditAction, String target, int count) {
      this.auditAction = auditAction;
      this.target = target;
      this.count = count;
    }
  }

  /** Refuses a confirmation whose count is not the count now. */
  private static void check(Outcome outcome, @Nullable Integer confirmed) {
    if (confirmed != null && confirmed != outcome.count) {
      throw new Refusal(409, "the count changed: " + outcome.count + " now, " + confirmed
          + " confirmed; nothing was changed, confirm again", Map.of("count", outcome.count, "confirmed", confirmed));
    }
  }

  private Outcome entry(String name, Map<String, String> query, boolean dryRun, @Nullable Integer confirmed) {
    UUID id = uuid(required(query, "id"));
    boolean requeue = name.startsWith("requeue");
    Outcome outcome = new Outcome(requeue ? OperatorAction.REQUEUE : OperatorAction.DISCARD, "entry " + id,
        store.countQuarantined(QuarantineSelector.ofIds(List.of(id))));
    outcome.more.put("id", id.toString());
    if (outcome.count == 0) {
      throw new Refusal(404, "no quarantined or parked entry has this id", Map.of("id", id.toString()));
    }
    if (!dryRun) {
      check(outcome, confirmed);
      boolean done = requeue ? store.requeue(id, clock.instant()) : store.discard(id);
      outcome.changed = done ? 1 : 0;
    }
    return outcome;
  }

  private Outcome group(HttpExchange exchange, String name, Map<String, String> query, boolean dryRun,
      @Nullable Integer confirmed) throws IOException {
    String groupId = required(query, "group");
    boolean requeue = name.startsWith("requeue");
    String action = requeue ? OperatorAction.REQUEUE : OperatorAction.DISCARD;
    if (dryRun) {
      QuarantineGroup group = store.quarantineGroups(QuarantineGroups.MAX_GROUPED).find(groupId)
          .orElseThrow(() -> new Refusal(404, "no entry is in this group any more"));
      Outcome outcome = new Outcome(action, describe(group), group.count());
      outcome.more.put("ids", group.ids().stream().map(UUID::toString).toList());
      return outcome;
    }
    Set<UUID> ids = ids(exchange);
    if (ids.size() != confirmed) {
      throw new Refusal(400, "the body names " + ids.size() + " ids, the confirmation " + confirmed
          + "; send the ids the dry run listed, one per line");
    }
    QuarantineSelector seen = new QuarantineSelector(null, null, null, null, groupId, ids);
    List<OutboxEntry> one = store.quarantined(seen, QuarantineQuery.first(1));
    Outcome outcome = new Outcome(action, one.isEmpty() ? "group " + groupId : groupOf(one.get(0)), ids.size());
    Instant now = clock.instant();
    outcome.changed = inBatches(ids.size(),
        limit -> requeue ? store.requeueAll(seen, now, limit) : store.discardAll(seen, limit));
    long left = ids.size() - outcome.changed;
    outcome.more.put("left", left);
    outcome.detail = "confirmed " + ids.size() + (left == 0 ? "" : "; " + left + " had left the group meanwhile");
    return outcome;
  }

  private static String describe(QuarantineGroup group) {
    return "group " + group.destination() + " / " + group.kindLabel() + " / " + group.pattern();
  }

  private static String groupOf(OutboxEntry entry) {
    QuarantineGroups.Member member = QuarantineGroups.Member.of(entry);
    return "group " + member.destination() + " / " + member.kindLabel() + " / " + ReasonPattern.of(member.reason());
  }

  private Outcome waiting(String name, Map<String, String> query, boolean dryRun, @Nullable Integer confirmed) {
    String destination = blankToNull(query.get("destination"));
    String key = blankToNull(query.get("key"));
    WaitingSelector selector;
    try {
      selector = new WaitingSelector(key, destination);
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, "name the waiting entries' destination, key or both: " + e.getMessage());
    }
    boolean park = name.equals("park-waiting");
    Instant now = clock.instant();
    Outcome outcome = new Outcome(park ? OperatorAction.PARK : OperatorAction.DISCARD_WAITING,
        "waiting entries" + (key == null ? "" : " of key '" + key + "'")
            + (destination == null ? "" : " for destination '" + destination + "'"),
        store.countWaiting(selector, now));
    if (!dryRun) {
      check(outcome, confirmed);
      outcome.changed = inBatches(outcome.count,
          limit -> park ? store.parkWaiting(selector, now, limit) : store.discardWaiting(selector, now, limit));
      outcome.detail = "confirmed " + outcome.count;
    }
    return outcome;
  }

  private Outcome pause(String name, Map<String, String> query, boolean dryRun, @Nullable Integer confirmed) {
    String destination = required(query, "destination");
    boolean pausing = name.equals("pause");
    boolean paused = store.operatorPauses().stream().anyMatch(p -> p.destination().equals(destination));
    Outcome outcome = new Outcome(pausing ? OperatorAction.PAUSE : OperatorAction.RESUME,
        "destination '" + destination + "'", pausing != paused ? 1 : 0);
    outcome.more.put("paused", paused);
    outcome.more.put("waiting", store.countWaiting(WaitingSelector.ofDestination(destination), clock.instant()));
    if (!dryRun) {
      check(outcome, confirmed);
      String reason = query.getOrDefault("reason", "");
      try {
        outcome.changed = (pausing ? store.pauseDestination(destination, token.name(), reason, clock.instant())
            : store.resumeDestination(destination)) ? 1 : 0;
      } catch (IllegalArgumentException e) {
        throw new Refusal(400, e.getMessage());
      }
      outcome.detail = pausing ? "by " + token.name() + (reason.isEmpty() ? "" : ": " + reason) : "";
    }
    return outcome;
  }

  /** Changes up to {@code most} entries in batches of {@value #BATCH}; returns how many changed. */
  private static long inBatches(int most, java.util.function.IntUnaryOperator batch) {
    long done = 0;
    while (done < most) {
      int size = (int) Math.min(BATCH, most - done);
      int changed = batch.applyAsInt(size);
      done += changed;
      if (changed < size) {
        break;
      }
    }
    return done;
  }

  /** @return the error, or {@code null} when the action was recorded */
  private @Nullable String record(Outcome outcome) {
    try {
      boolean destinationOnly = outcome.auditAction.equals(OperatorAction.PAUSE)
          || outcome.auditAction.equals(OperatorAction.RESUME);
      store.recordOperatorAction(OperatorAction.of(clock.instant(), token.name(), outcome.auditAction, outcome.target,
          destinationOnly ? 0 : outcome.changed, outcome.detail));
      return null;
    } catch (OutboxException e) {
      return "applied, but not recorded in the audit log: " + e.getMessage();
    }
  }

  // ---------------------------------------------------------------------------------------------------- parsing

  private static Set<UUID> ids(HttpExchange exchange) throws IOException {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readNBytes(MAX_BODY + 1);
    }
    if (body.length > MAX_BODY) {
      throw new Refusal(413, "at most " + QuarantineSelector.MAX_IDS + " ids");
    }
    Set<UUID> ids = new LinkedHashSet<>();
    for (String line : new String(body, StandardCharsets.UTF_8).split("[\\s,]+")) {
      if (!line.isEmpty()) {
        ids.add(uuid(line));
      }
    }
    if (ids.isEmpty()) {
      throw new Refusal(400, "send the ids the dry run listed, one per line");
    }
    return ids;
  }

  private static UUID uuid(String text) {
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, "not an entry id: '" + (text.length() > 40 ? text.substring(0, 40) + "…" : text) + "'");
    }
  }

  static Map<String, String> query(HttpExchange exchange) {
    Map<String, String> values = new LinkedHashMap<>();
    String raw = exchange.getRequestURI().getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return values;
    }
    for (String pair : raw.split("&")) {
      int equals = pair.indexOf('=');
      String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
      String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
      values.put(name, value);
    }
    return values;
  }

  private static String required(Map<String, String> query, String name) {
    String value = query.get(name);
    if (value == null || value.isBlank()) {
      throw new Refusal(400, name + " is required");
    }
    return value;
  }

  private static @Nullable String blankToNull(@Nullable String value) {
    return value == null || value.isBlank() ? null : value;
  }

  private static int integer(Map<String, String> query, String name, int fallback, int min, int max) {
    String value = query.get(name);
    if (value == null) {
      return fallback;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed < min || parsed > max) {
        throw new Refusal(400, name + " must be " + min + ".." + max + ", was " + parsed);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new Refusal(400, name + " must be an integer, was '" + value + "'");
    }
  }

  private static long longValue(Map<String, String> query, String name) {
    try {
      return Long.parseLong(query.get(name));
    } catch (NumberFormatException e) {
      throw new Refusal(400, name + " must be an integer");
    }
  }
}
