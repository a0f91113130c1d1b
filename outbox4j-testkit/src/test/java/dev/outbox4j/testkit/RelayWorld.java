package dev.outbox4j.testkit;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InMemoryTransaction;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Retention;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The small world one chain of {@link RelayProtocolPropertyTest} acts on: two relays draining one in-memory store on one
 * settable clock, three destinations that answer as the chain's scripts say (or are down), the copies that land at them,
 * and the checks of the relay's promises after every step. Each step appends a line to the story, which a failure
 * prints.
 *
 * <p>A relay's pass runs on the chain's thread ({@link Relay#flush()}, the transport inline), so a chain replays
 * exactly; only a pass that freezes runs on a thread of its own, blocked at its first recording call
 * ({@link FencedStore}) until the chain wakes or kills it. Answers come at once, or never (a late answer: the relay
 * waits its delivery timeout, {@value #ANSWER_MILLIS} ms of real time, and gives up). A drain ({@link Relay#drain},
 * {@value #DRAIN_PASSES} passes) runs on the chain's thread too; its claim ahead runs on a thread of its own at the
 * point the chain drew among the drain's store changes ({@link FencedStore#startDrain}), so it replays exactly as well.
 * Time moves only by the chain's jumps: a drain that waits for a paused destination's next probe goes on at once.
 *
 * <p>Not thread-safe: one chain, one thread (and at most one frozen pass per relay, which touches the world only before
 * it freezes).
 */
final class RelayWorld implements AutoCloseable {
  static final int ANSWER_MILLIS = 30;
  /** The transport's bound on a send (its {@code maxAnswerTime}), and the relay's delivery timeout. */
  static final Duration ANSWER_TIME = Duration.ofMillis(ANSWER_MILLIS);
  static final Duration LEASE = Duration.ofSeconds(10);
  /** The outage pause's base and cap; the cap is also the window of the outage judgement. */
  static final Duration OUTAGE_BASE = Duration.ofSeconds(1);
  static final Duration OUTAGE_CAP = Duration.ofSeconds(4);
  /** Retries sooner than a late copy may land, so that the late-copy bound is what keeps the order. */
  static final RetryPolicy RETRIES = RetryPolicy.linear().withBase(Duration.ofMillis(5)).withCap(Duration.ofMillis(20))
      .withMaxAttempts(3).build();
  static final int BATCH = 3;
  /**
   * The passes of a drain: it may claim ahead after its first (never on its last), so at most one claim ahead a drain,
   * which {@link FencedStore} places exactly.
   */
  static final int DRAIN_PASSES = 2;
  static final List<String> RELAYS = List.of("relay A", "relay B");
  static final List<String> DESTINATIONS = List.of("d1", "d2", "d3");
  /** The ordering keys; {@code null} writes an unkeyed message. */
  static final List<@Nullable String> KEYS = Arrays.asList("K1", "K2", "K3", null);
  /** The most entries neither delivered nor quarantined: enough for backlogs, few rows to check per step. */
  static final int MOST_OPEN = 12;
  private static final int SETTLE_ROUNDS = 30;

  /** What a destination that is up does with one delivery, as the chain's script says. */
  enum Answer {
    /** Confirmed: the copy has landed. */
    CONFIRM,
    /** Refused for good (the message's own fault): nothing lands. */
    REFUSE,
    /** A retryable failure of this message: nothing lands. */
    FAIL,
    /** A retryable failure, but the copy is on its way and lands later (by the answer time). */
    FAIL_LANDS_LATER,
    /** No answer before the deadline; the copy lands later (by the answer time). */
    LATE,
    /** No answer before the deadline, and nothing lands. */
    LATE_LOST;

    String describe() {
      return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
  }

  /** How a destination is down: the transport says so ({@code unavailable}), or it answers a plain 503. */
  enum Outage {
    ANNOUNCED, SILENT
  }

  /** One delivery a relay made, and what the destination answered. */
  private record Delivery(UUID id, String destination, String answer, boolean ownFault, boolean refused,
      boolean confirmed) {}

  private final SettableClock clock = SettableClock.atFixedStart();
  private final Instant start = clock.instant();
  private final InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock)
      .withRetention(Retention.keepFor(Duration.ofDays(1))).build();
  private final Receiver receiver = new Receiver();
  private final Map<UUID, Receiver.Sent> written = new LinkedHashMap<>();
  private final Map<String, List<Receiver.Sent>> byKey = new HashMap<>();
  private final Map<String, Outage> outages = new HashMap<>();
  /** When each destination last confirmed a message, to any relay. */
  private final Map<String, Instant> lastConfirmed = new HashMap<>();
  private final RelayHandle[] relays = new RelayHandle[RELAYS.size()];
  private final List<String> violations = new ArrayList<>();
  private final List<String> story = new ArrayList<>();
  private final String chain;
  private int unkeyed;
  private int incarnations;
  private boolean settling;

  RelayWorld(String chain) {
    this.chain = chain;
    for (int i = 0; i < relays.length; i++) {
      relays[i] = new RelayHandle(RELAYS.get(i));
    }
  }

  /** One relay: its view of the store, its engine, its script for the pass under way and what it saw. */
  private final class RelayHandle {
    final String name;
    final FencedStore fence = new FencedStore(store);
    final Relay relay;
    List<Answer> script = List.of(Answer.CONFIRM);
    int cursor;
    final List<Delivery> deliveries = new ArrayList<>();
    /** Destinations that failed at this relay since they last confirmed there, as of its latest recorded pass. */
    final Set<String> failedSinceConfirmed = new HashSet<>();
    @Nullable Thread frozenPass;
    @Nullable Throwable passError;
    Set<String> pausedAtStart = Set.of();

    RelayHandle(String name) {
      this.name = name;
      this.relay = Relay.builder(fence.view(), new ScriptedTransport(m -> deliver(this, m), ANSWER_TIME))
          .withClock(clock).withRandom(new Random(++incarnations)).withBatchSize(BATCH).withLease(LEASE)
          .withDeliveryTimeout(ANSWER_TIME).withRetryPolicy(RETRIES).withOutageBackoff(OUTAGE_BASE, OUTAGE_CAP)
          .withThreadFactory(fence::newThread).withSleeper(duration -> { }).build();
    }

    Answer nextAnswer() {
      return script.get(cursor++ % script.size());
    }

    Set<String> paused() {
      return relay.pausedDestinations().stream().map(DestinationStatus::destination).collect(Collectors.toSet());
    }

    boolean frozen() {
      return frozenPass != null;
    }
  }

  boolean isFrozen(int relay) {
    return relays[relay].frozen();
  }

  boolean hasCopiesOnTheWay() {
    return !receiver.onTheWay().isEmpty();
  }

  // ------------------------------------------------------------------------------------------------ writers

  /** A message to write: its key (or {@code null}) and destination. */
  record Write(@Nullable String key, String destination) {
    @Override
    public String toString() {
      return (key == null ? "unkeyed" : key) + ">" + destination;
    }
  }

  /**
   * @return how many open messages are due now and the oldest open one of their key (or unkeyed): about as many as a
   *     claim finds, leaving aside those another relay holds
   */
  long due() {
    Instant now = clock.instant();
    Set<String> keysSeen = new HashSet<>();
    long due = 0;
    for (Receiver.Sent sent : written.values()) {
      OutboxEntry entry = store.find(sent.id()).orElse(null);
      if (entry == null || entry.status() == EntryStatus.DELIVERED || entry.status() == EntryStatus.QUARANTINED) {
        continue;
      }
      boolean head = sent.key() == null || keysSeen.add(sent.key());
      if (head && !entry.availableAt().isAfter(now)) {
        due++;
      }
    }
    return due;
  }

  void write(List<Write> writes) {
    long open = written.keySet().stream().map(store::find).filter(e -> e.isPresent()
        && e.get().status() != EntryStatus.DELIVERED && e.get().status() != EntryStatus.QUARANTINED).count();
    if (open >= MOST_OPEN) {
      tell("a writer skips its write: " + open + " entries are open already");
      return;
    }
    List<Message> messages = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (Write w : writes) {
      Message.Builder builder = Message.builder().withDestination(w.destination()).withPayload("p");
      Message message = (w.key() == null ? builder : builder.withOrderingKey(w.key())).build();
      messages.add(message);
      List<Receiver.Sent> ofKey = byKey.computeIfAbsent(w.key() == null ? "" : w.key(), k -> new ArrayList<>());
      String label = (w.key() == null ? "u" + ++unkeyed : w.key() + "#" + (ofKey.size() + 1)) + ">" + w.destination();
      Receiver.Sent sent = new Receiver.Sent(message.id(), label, w.key(), ofKey.size());
      ofKey.add(sent);
      written.put(message.id(), sent);
      labels.add(label);
    }
    try (InMemoryTransaction transaction = store.begin()) {
      store.outbox().writeAll(transaction, messages);
      transaction.commit();
    }
    tell("a writer commits " + labels);
    verify();
  }

  // ------------------------------------------------------------------------------------------------ the destinations

  private CompletionStage<DeliveryOutcome> deliver(RelayHandle relay, Message message) {
    Receiver.Sent sent = written.get(message.id());
    String destination = message.destination();
    Instant now = clock.instant();
    Outage outage = outages.get(destination);
    if (outage != null) {
      // a plain 503 in an outage is the message's own fault as far as anyone can tell while the destination confirmed
      // another message within the window: the relay may charge it then (docs/relay.md, "How an outage is told")
      Instant confirmed = lastConfirmed.get(destination);
      boolean toldApart = outage == Outage.SILENT && confirmed != null && !confirmed.isBefore(now.minus(OUTAGE_CAP));
      relay.deliveries.add(new Delivery(sent.id(), destination, outage == Outage.ANNOUNCED ? "unavailable" : "503",
          toldApart, false, false));
      return CompletableFuture.completedFuture(outage == Outage.ANNOUNCED
          ? DeliveryOutcome.unavailable("connection refused: " + destination + " is down")
          : DeliveryOutcome.retryable("HTTP 503 from " + destination));
    }
    Answer answer = relay.nextAnswer();
    boolean own = answer != Answer.CONFIRM && answer != Answer.REFUSE;
    relay.deliveries.add(new Delivery(sent.id(), destination, answer.describe(), own, answer == Answer.REFUSE,
        answer == Answer.CONFIRM));
    if (answer == Answer.FAIL_LANDS_LATER || answer == Answer.LATE) {
      receiver.onItsWay(sent, now.plus(ANSWER_TIME));
    }
    return switch (answer) {
      case CONFIRM -> {
        land(sent);
        lastConfirmed.put(destination, now);
        yield CompletableFuture.completedFuture(DeliveryOutcome.delivered());
      }
      case REFUSE -> CompletableFuture.completedFuture(DeliveryOutcome.permanent("422: " + sent.label() + " refused"));
      case FAIL, FAIL_LANDS_LATER -> CompletableFuture.completedFuture(
          DeliveryOutcome.retryable("HTTP 500 for " + sent.label()));
      case LATE, LATE_LOST -> new CompletableFuture<>(); // answered after the relay gave up, if ever: it never hears
    };
  }

  private void land(Receiver.Sent sent) {
    String broken = receiver.land(sent);
    if (broken != null) {
      violations.add(broken);
    }
  }

  void startOutage(String destination, Outage how) {
    outages.put(destination, how);
    tell(destination + " goes down (" + (how == Outage.ANNOUNCED ? "the transport says unavailable" : "plain 503s")
        + ")");
  }

  void endOutage(String destination) {
    tell(destination + (outages.remove(destination) != null ? " is up again" : " was up"));
  }

  /** The copy on its way with this index (in bound order) lands now. */
  void landOne(int index) {
    List<Receiver.OnTheWay> onTheWay = receiver.onTheWay();
    Receiver.OnTheWay copy = onTheWay.get(index % onTheWay.size());
    receiver.arrived(copy);
    tell("a late copy of " + copy.message().label() + " lands (it could until " + since(copy.landsBy()) + ")");
    land(copy.message());
    verify();
  }

  /** The clock jumps; every copy on its way whose bound comes before the new time lands first, at its bound. */
  void jump(Duration amount) {
    Instant to = clock.instant().plus(amount);
    List<String> landed = new ArrayList<>();
    for (Receiver.OnTheWay copy : receiver.onTheWay()) {
      if (!copy.landsBy().isAfter(to)) {
        receiver.arrived(copy);
        landed.add(copy.message().label());
        land(copy.message());
      }
    }
    clock.set(to);
    tell("the clock jumps " + amount.toMillis() + " ms to " + since(to)
        + (landed.isEmpty() ? "" : "; late copies land on the way: " + landed));
    verify();
  }

  // ------------------------------------------------------------------------------------------------ relays

  /** The relay runs one pass, its destinations answering from the script. */
  void pass(int index, List<Answer> script) {
    RelayHandle relay = relays[index];
    Map<UUID, OutboxEntry> before = rows();
    Set<String> pausedBefore = relay.paused();
    begin(relay, script);
    relay.relay.flush();
    finishPass(relay, before, pausedBefore, "");
  }

  /**
   * The relay drains: up to {@value #DRAIN_PASSES} passes, the next batch claimed ahead (after a full batch) just
   * before the relay's {@code aheadAt}-th store change since that claim started, or when the relay waits for it.
   *
   * @param combines whether the store says it combines a completion with the next claim (the relay then claims ahead
   *     only while answers are awaited, and otherwise claims with its last confirmations)
   */
  void drain(int index, List<Answer> script, int aheadAt, boolean combines) {
    RelayHandle relay = relays[index];
    Map<UUID, OutboxEntry> before = rows();
    Set<String> pausedBefore = relay.paused();
    begin(relay, script);
    relay.fence.startDrain(aheadAt, combines);
    String ahead;
    try {
      relay.relay.drain(DRAIN_PASSES);
    } finally {
      ahead = relay.fence.endDrain();
    }
    finishPass(relay, before, pausedBefore, " (a drain" + (combines ? ", the store combining" : "")
        + (ahead.isEmpty() ? ", no claim ahead" : "; its claim ahead ran " + ahead) + ")");
  }

  /** The relay runs a pass that freezes after its sends, before it records anything. */
  void passAndFreeze(int index, List<Answer> script) {
    RelayHandle relay = relays[index];
    Map<UUID, OutboxEntry> before = rows();
    relay.pausedAtStart = relay.paused();
    begin(relay, script);
    Thread thread = new Thread(() -> {
      try {
        relay.relay.flush();
      } catch (RuntimeException | FencedStore.Killed e) {
        relay.passError = e;
      } finally {
        relay.fence.passEnded();
      }
    }, relay.name + "'s frozen pass");
    thread.setDaemon(true);
    relay.fence.freezeAtNextRecording(thread);
    thread.start();
    boolean frozen;
    try {
      frozen = relay.fence.awaitFrozenOrEnded(Duration.ofMinutes(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (!frozen) {
      relay.fence.release(); // it will not freeze in a later pass either
      join(relay, thread);
      finishPass(relay, before, relay.pausedAtStart, " (it was to freeze, but recorded nothing)");
      return;
    }
    relay.frozenPass = thread;
    tell(relay.name + " claims " + labels(relay.fence.claimsSoFar()) + ", sends " + describe(relay.deliveries)
        + " and freezes before recording anything");
    verify();
  }

  /** A frozen relay wakes up and records its pass, however late. */
  void wake(int index) {
    RelayHandle relay = relays[index];
    Thread thread = relay.frozenPass;
    if (thread == null) {
      tell(relay.name + " was not frozen");
      return;
    }
    Map<UUID, OutboxEntry> before = rows();
    relay.fence.release();
    join(relay, thread);
    relay.frozenPass = null;
    finishPass(relay, before, relay.pausedAtStart, " (woken up)");
  }

  /** The relay dies, abandoning whatever it claimed, and a fresh one starts in its place. */
  void kill(int index) {
    RelayHandle relay = relays[index];
    Thread thread = relay.frozenPass;
    String abandoned = "";
    if (thread != null) {
      abandoned = ", abandoning its claims of " + labels(relay.fence.takeClaims());
      relay.fence.kill();
      join(relay, thread);
    }
    relays[index] = new RelayHandle(relay.name);
    tell(relay.name + " dies" + abandoned + "; a fresh " + relay.name + " starts");
    verify();
  }

  private void begin(RelayHandle relay, List<Answer> script) {
    relay.script = script;
    relay.cursor = 0;
    relay.deliveries.clear();
    relay.passError = null;
    relay.fence.takeClaims();
    relay.fence.takeHandedBack();
  }

  private static void join(RelayHandle relay, Thread thread) {
    try {
      thread.join(Duration.ofMinutes(1).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (thread.isAlive()) {
      throw new IllegalStateException(relay.name + "'s pass did not end within a minute");
    }
  }

  /** Checks a relay's finished pass: what it did with each claim, what it charged and what it quarantined. */
  private void finishPass(RelayHandle relay, Map<UUID, OutboxEntry> before, Set<String> pausedBefore, String note) {
    if (relay.passError != null && !(relay.passError instanceof FencedStore.Killed)) {
      throw new AssertionError("[pass-failed] " + relay.name + "'s pass threw: " + relay.passError
          + "\n\nthe story so far (" + chain + "):\n" + story(), relay.passError);
    }
    List<Claim> claims = relay.fence.takeClaims();
    // a claim handed back unsent (a drain's claim ahead, when the drain ends) is nobody's to send
    Set<Claim> handedBack = new HashSet<>(relay.fence.takeHandedBack());
    Map<UUID, OutboxEntry> after = rows();
    Set<String> pausedAfter = relay.paused();
    if (!settling || !claims.isEmpty()) {
      tell(relay.name + "'s pass" + note + ": claims " + labels(claims) + ", sends " + describe(relay.deliveries)
          + " -> " + changes(before, after) + (pausedAfter.isEmpty() ? "" : "; paused: " + sorted(pausedAfter)));
    }
    for (Delivery delivery : relay.deliveries) {
      if (delivery.confirmed()) {
        relay.failedSinceConfirmed.remove(delivery.destination());
      } else if (!delivery.refused()) {
        relay.failedSinceConfirmed.add(delivery.destination());
      }
    }
    Map<UUID, List<Delivery>> byEntry = new HashMap<>();
    relay.deliveries.forEach(d -> byEntry.computeIfAbsent(d.id(), id -> new ArrayList<>()).add(d));
    for (Claim claim : claims) {
      String destination = claim.message().destination();
      if (!byEntry.containsKey(claim.id()) && !handedBack.contains(claim) && !pausedBefore.contains(destination)
          && !pausedAfter.contains(destination)) {
        violations.add("[lane] " + relay.name + " claimed " + label(claim.id()) + " and neither sent it nor held it"
            + " back for a paused destination (" + destination + " was not paused)");
      }
    }
    for (Map.Entry<UUID, OutboxEntry> row : after.entrySet()) {
      OutboxEntry was = before.get(row.getKey());
      OutboxEntry is = row.getValue();
      if (was == null) {
        continue;
      }
      List<Delivery> answers = byEntry.getOrDefault(row.getKey(), List.of());
      // a refusal is the message's own fault too: its quarantine counts the attempt
      long ownFaults = answers.stream().filter(d -> d.ownFault() || d.refused()).count();
      int charged = is.attempts() - was.attempts();
      if (charged > ownFaults) {
        violations.add("[charged-for-an-outage] " + relay.name + " charged " + label(is.id()) + " " + charged
            + " attempt(s) in a pass where its answers were " + answers.stream().map(Delivery::answer).toList()
            + " (" + ownFaults + " of its own fault)");
      }
      if (is.status() == EntryStatus.QUARANTINED && was.status() != EntryStatus.QUARANTINED
          && answers.stream().noneMatch(d -> d.ownFault() || d.refused())) {
        violations.add("[quarantined-for-an-outage] " + relay.name + " quarantined " + label(is.id())
            + " in a pass where its answers were " + answers.stream().map(Delivery::answer).toList() + ": "
            + is.quarantineReason());
      }
    }
    relay.deliveries.clear();
    verify();
  }

  // ------------------------------------------------------------------------------------------------ settling

  /**
   * Everything settles: outages end, frozen relays wake up, every destination confirms, and the clock moves on until
   * nothing is left to do. Then every message written must be delivered, or quarantined for its own refusals, or wait
   * behind a quarantined entry of its key.
   */
  void settle() {
    tell("everything settles: outages end, frozen relays wake up, every delivery is confirmed");
    outages.clear();
    for (int i = 0; i < relays.length; i++) {
      if (relays[i].frozen()) {
        wake(i);
      }
    }
    settling = true;
    int rounds = 0;
    try {
      while (!unsettled().isEmpty() && rounds++ < SETTLE_ROUNDS) {
        jump(Duration.ofMinutes(1));
        for (int i = 0; i < relays.length; i++) {
          pass(i, List.of(Answer.CONFIRM));
        }
      }
    } finally {
      settling = false;
    }
    List<String> stuck = unsettled();
    if (!stuck.isEmpty()) {
      violations.add("[nothing-lost] after " + SETTLE_ROUNDS + " minutes of passes with every destination up, "
          + stuck + " are neither delivered nor quarantined nor behind a quarantined entry of their key");
    }
    tell("settled after " + rounds + " rounds");
    verify();
  }

  private List<String> unsettled() {
    List<String> stuck = new ArrayList<>();
    for (Receiver.Sent sent : written.values()) {
      EntryStatus status = store.find(sent.id()).map(OutboxEntry::status).orElse(null);
      if (status == EntryStatus.DELIVERED || status == EntryStatus.QUARANTINED) {
        continue;
      }
      boolean blocked = sent.key() != null && byKey.get(sent.key()).subList(0, sent.index()).stream()
          .anyMatch(e -> store.find(e.id()).map(OutboxEntry::status).orElse(null) == EntryStatus.QUARANTINED);
      if (!blocked) {
        stuck.add(sent.label() + " " + (status == null ? "gone" : status.name().toLowerCase(Locale.ROOT)));
      }
    }
    return stuck;
  }

  // ------------------------------------------------------------------------------------------------ checks and story

  /** The checks after every step, and the violations found during it. */
  private void verify() {
    for (Receiver.Sent sent : written.values()) {
      OutboxEntry entry = store.find(sent.id()).orElse(null);
      if (entry == null) {
        violations.add("[nothing-lost] " + sent.label() + " is gone from the store");
      } else if (entry.status() == EntryStatus.DELIVERED && receiver.copiesOf(sent.id()) == 0) {
        violations.add("[delivered-unconfirmed] " + sent.label() + " is recorded delivered, but no copy landed");
      }
    }
    for (RelayHandle relay : relays) {
      if (relay.frozen()) {
        continue; // it has not judged what it sent yet
      }
      for (DestinationStatus paused : relay.relay.pausedDestinations()) {
        if (!relay.failedSinceConfirmed.contains(paused.destination())) {
          violations.add("[lane] " + relay.name + " holds " + paused.destination() + " paused (" + paused.cause()
              + ") though " + paused.destination() + " confirmed its latest delivery from " + relay.name
              + " and failed none since");
        }
      }
    }
    if (!violations.isEmpty()) {
      throw new AssertionError("the relay broke a promise:\n  " + String.join("\n  ", violations)
          + "\n\nthe story so far (" + chain + "):\n" + story());
    }
  }

  private Map<UUID, OutboxEntry> rows() {
    Map<UUID, OutboxEntry> rows = new LinkedHashMap<>();
    for (UUID id : written.keySet()) {
      store.find(id).ifPresent(entry -> rows.put(id, entry));
    }
    return rows;
  }

  /** @return each entry whose row changed, with what it is now */
  private String changes(Map<UUID, OutboxEntry> before, Map<UUID, OutboxEntry> after) {
    List<String> changed = new ArrayList<>();
    Instant now = clock.instant();
    for (Map.Entry<UUID, OutboxEntry> row : after.entrySet()) {
      OutboxEntry was = before.get(row.getKey());
      OutboxEntry is = row.getValue();
      if (was != null && was.status() == is.status() && was.attempts() == is.attempts()
          && was.availableAt().equals(is.availableAt())) {
        continue;
      }
      String due = is.availableAt().isAfter(now) ? ", due +" + Duration.between(now, is.availableAt()).toMillis()
          + " ms" : "";
      changed.add(label(row.getKey()) + " " + is.status().name().toLowerCase(Locale.ROOT)
          + (is.attempts() > 0 ? " (attempts " + is.attempts() + due + ")" : due.isEmpty() ? "" : " (" + due.substring(2)
              + ")"));
    }
    return changed.isEmpty() ? "no change" : String.join(", ", changed);
  }

  private String describe(List<Delivery> deliveries) {
    return deliveries.isEmpty() ? "nothing" : deliveries.stream()
        .map(d -> label(d.id()) + ": " + d.answer()).collect(Collectors.joining(", ", "[", "]"));
  }

  private String labels(List<Claim> claims) {
    return claims.stream().map(c -> label(c.id())).toList().toString();
  }

  private String label(UUID id) {
    Receiver.Sent sent = written.get(id);
    return sent == null ? "unknown " + id : sent.label();
  }

  private static List<String> sorted(Set<String> names) {
    return names.stream().sorted().toList();
  }

  private String since(Instant instant) {
    return "+" + Duration.between(start, instant).toMillis() + " ms";
  }

  private void tell(String line) {
    story.add(String.format("%3d. %s", story.size() + 1, line));
  }

  /** @return every step so far, one line each */
  String story() {
    return String.join("\n", story);
  }

  /** Kills the relays still frozen, so that no thread of this world outlives it. */
  @Override
  public void close() {
    for (RelayHandle relay : relays) {
      Thread thread = relay.frozenPass;
      if (thread != null) {
        relay.fence.kill();
        join(relay, thread);
        relay.frozenPass = null;
      }
    }
  }
}
