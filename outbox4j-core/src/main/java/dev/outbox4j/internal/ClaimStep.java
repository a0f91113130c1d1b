package dev.outbox4j.internal;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.RelayResult;
import dev.outbox4j.spi.AtomicBatches;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.ClaimRequest;
import dev.outbox4j.spi.DeliveredAndClaimed;
import dev.outbox4j.spi.DeliveryRecordGoneException;
import dev.outbox4j.spi.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a pass does between the store's claim and the send: claims runs of a key where they can go in an atomic batch,
 * and settles the entries in doubt. Not API.
 *
 * <h2>Why it is built this way</h2>
 * <ul>
 *   <li><b>Runs only where a batch is atomic.</b> The store is asked for runs of a key only once the transport has
 *       shown a destination with atomic batches ({@link Lanes}); otherwise a claim is heads only, as it always was. A
 *       run is kept while its entries go to the head's destination, which has atomic batches: there the whole run
 *       lands in order or not at all, and the destination's gate holds back or sends it as one (a probe takes a
 *       destination's first claims in {@code seq} order, so a key's run is cut only at its end). The rest of a run is
 *       handed back at once, unsent ({@link OutboxStore#release}); it waits behind its head as before.
 *   <li><b>An entry in doubt is asked about before anything is recorded for it.</b> An earlier claim of it expired
 *       with nothing recorded, so its send may have landed. Its transport's {@link AtomicBatches#deliveredEarlier} says
 *       which did: those are retired without being sent again. When that cannot be told now, the entry is left claimed,
 *       untouched (its lease hands it on, still in doubt); when it can never be told, it is quarantined for an
 *       operator. The question is waited for a quarter of the lease, then cancelled, so that the transport stops it
 *       and frees what it holds instead of answering a question nobody waits for. Whatever happens to a run's entry
 *       happens to the rest of the run behind it, so a run is never sent without its earlier entries. An entry in
 *       doubt of a destination without atomic batches is sent again: that is at-least-once, as for every such
 *       destination.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class ClaimStep {
  private static final String SENT_AGAIN = "entries in doubt sent again (an earlier send had not landed, or the destination"
      + " has no atomic batches)";
  private final RelaySettings settings;
  private final RelayEvents events;
  private final Lanes lanes;
  private final Supplier<List<DestinationStatus>> paused;
  /** Takeovers and entries settled after a doubt, counted at INFO. */
  private final RelayLog.Tally tally;

  /**
   * @param paused the destinations paused now, by an outage or an operator ({@link DestinationGates#paused}): the claim
   *     leaves out those it would only hold back
   */
  ClaimStep(RelaySettings settings, RelayEvents events, Lanes lanes, Supplier<List<DestinationStatus>> paused,
      RelayLog.Tally tally) {
    this.tally = tally;
    this.settings = settings;
    this.events = events;
    this.lanes = lanes;
    this.paused = paused;
  }

  /** The claims left to send after settling, and what settling recorded. */
  record Settled(List<Claim> claims, RelayResult result) {}

  /**
   * Claims a batch: runs of a key where the transport has atomic batches, each cut to what can go in one.
   *
   * @return the claims, in {@code seq} order
   */
  List<Claim> claim(int limit, Instant now) {
    ClaimRequest request = request(limit, now);
    return cut(settings.store().claim(request.limit(), request.now(), request.lease(), request.maxRun(),
        request.skippedDestinations()));
  }

  /**
   * Retires confirmed claims and claims the next batch in one step of the store
   * ({@link OutboxStore#markDeliveredAndClaim}): one transaction, one commit, where the store can.
   *
   * @param delivered the confirmed claims
   * @param deliveredAt the confirmation time
   * @return the confirmed claims that were lost, and the next batch's claims as {@link #claim} returns them
   */
  DeliveredAndClaimed retireAndClaim(List<Claim> delivered, Instant deliveredAt, int limit, Instant now) {
    DeliveredAndClaimed done = settings.store().markDeliveredAndClaim(delivered, deliveredAt, request(limit, now));
    return new DeliveredAndClaimed(done.lost(), cut(done.claims()));
  }

  /** @return the claim a pass makes now: runs of a key once a destination with atomic batches was met */
  private ClaimRequest request(int limit, Instant now) {
    return new ClaimRequest(limit, now, settings.lease(), lanes.any() ? settings.batchSize() : 1,
        skippedDestinations(now));
  }

  /** Counts the takeovers among fresh claims and cuts their runs to what can go in one atomic batch. */
  private List<Claim> cut(List<Claim> claims) {
    tally.add("expired claims taken over (an earlier claim ended without an outcome)",
        (int) claims.stream().filter(Claim::inDoubt).count());
    Map<String, Claim> heads = new HashMap<>();
    Set<String> cutKeys = new HashSet<>();
    List<Claim> kept = new ArrayList<>(claims.size());
    List<Claim> cut = new ArrayList<>();
    for (Claim claim : claims) {
      String destination = claim.message().destination();
      AtomicBatches lane = lanes.of(destination);
      String key = claim.message().orderingKey().orElse(null);
      if (key == null) {
        kept.add(claim);
        continue;
      }
      Claim head = heads.putIfAbsent(key, claim);
      if (head == null) {
        kept.add(claim);
      } else if (!cutKeys.contains(key) && lane != null && destination.equals(head.message().destination())) {
        kept.add(claim);
      } else {
        cutKeys.add(key);
        cut.add(claim);
      }
    }
    if (!cut.isEmpty()) {
      release(cut, "entries of runs that cannot go in one atomic batch");
    }
    return kept;
  }

  /**
   * The destinations whose entries a claim now would only hold back: those an operator paused, and those paused by an
   * outage whose next probe is not due. Left out of the claim, a paused destination's backlog stays waiting, untouched,
   * and costs the claims of every other destination nothing; once its probe is due it is claimed again, and the
   * probe's entries come from that claim ({@link DestinationGates#sort}).
   */
  Set<String> skippedDestinations(Instant now) {
    List<DestinationStatus> statuses = paused.get();
    if (statuses.isEmpty()) {
      return Set.of();
    }
    Set<String> skipped = new HashSet<>();
    for (DestinationStatus status : statuses) {
      Instant probe = status.nextProbeAt();
      if (probe == null || probe.isAfter(now)) {
        skipped.add(status.destination());
      }
    }
    return skipped;
  }

  /**
   * Settles the claims in doubt whose destinations have atomic batches: retires those that landed, quarantines those
   * whose fate can never be told, and takes out those whose fate cannot be told now (and every later entry of their
   * keys' runs).
   *
   * @param claims a pass's claims, in {@code seq} order
   * @return what is left to send, in order, and what was recorded
   */
  Settled settle(List<Claim> claims) {
    Map<AtomicBatches, List<Claim>> asks = new LinkedHashMap<>();
    for (Claim claim : claims) {
      AtomicBatches lane = claim.inDoubt() ? lanes.of(claim.message().destination()) : null;
      if (lane != null) {
        asks.computeIfAbsent(lane, l -> new ArrayList<>()).add(claim);
      }
    }
    if (asks.isEmpty()) {
      tally.add(SENT_AGAIN, (int) claims.stream().filter(Claim::inDoubt).count());
      return new Settled(claims, RelayResult.EMPTY);
    }
    Set<UUID> landed = new HashSet<>();
    Map<UUID, String> gone = new HashMap<>();
    Set<UUID> unknown = new HashSet<>();
    for (Map.Entry<AtomicBatches, List<Claim>> ask : asks.entrySet()) {
      ask(ask.getKey(), ask.getValue(), landed, gone, unknown);
    }
    List<Claim> send = new ArrayList<>(claims.size());
    List<Claim> retire = new ArrayList<>();
    List<Claim> quarantine = new ArrayList<>();
    List<Claim> handBack = new ArrayList<>();
    Map<String, Boolean> stopped = new HashMap<>(); // key -> true: left claimed behind; false: handed back behind
    for (Claim claim : claims) {
      String key = claim.message().orderingKey().orElse(null);
      Boolean behind = key == null ? null : stopped.get(key);
      if (behind != null) {
        if (!behind) {
          handBack.add(claim);
        } // else left claimed, untouched, like the entry before it
      } else if (landed.contains(claim.id())) {
        retire.add(claim);
      } else if (gone.containsKey(claim.id())) {
        quarantine.add(claim);
        if (key != null) {
          stopped.put(key, false);
        }
      } else if (unknown.contains(claim.id())) {
        if (key != null) {
          stopped.put(key, true);
        }
      } else {
        send.add(claim);
      }
    }
    RelayResult result = RelayResult.EMPTY;
    if (!retire.isEmpty()) {
      result = result.plus(retire(retire));
    }
    for (Claim claim : quarantine) {
      result = result.plus(quarantine(claim, gone.get(claim.id())));
    }
    if (!handBack.isEmpty()) {
      release(handBack, "entries behind an entry quarantined in doubt");
    }
    tally.add(SENT_AGAIN, (int) send.stream().filter(Claim::inDoubt).count());
    tally.add("entries settled after a doubt as already delivered (not sent again)", retire.size());
    tally.add("entries settled after a doubt as quarantined (whether they landed can no longer be told)",
        quarantine.size());
    int leftClaimed = claims.size() - send.size() - retire.size() - quarantine.size() - handBack.size();
    if (leftClaimed > 0) {
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, leftClaimed + " entries in doubt left claimed: whether an"
          + " earlier send of them landed cannot be told now; the claim after their lease asks again");
    }
    return new Settled(send, result);
  }

  private void ask(AtomicBatches lane, List<Claim> inDoubt, Set<UUID> landed, Map<UUID, String> gone,
      Set<UUID> unknown) {
    Instant since = inDoubt.stream().map(Claim::inDoubtSince).filter(java.util.Objects::nonNull)
        .min(Instant::compareTo).orElseThrow();
    Duration wait = settings.lease().dividedBy(4);
    @Nullable CompletableFuture<Set<UUID>> answer = null;
    try {
      answer = lane.deliveredEarlier(inDoubt.stream().map(Claim::message).toList(), since).toCompletableFuture();
      Set<UUID> found = answer.get(wait.toNanos(), TimeUnit.NANOSECONDS);
      for (Claim claim : inDoubt) {
        if (found.contains(claim.id())) {
          landed.add(claim.id());
        }
      }
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof DeliveryRecordGoneException recordGone) {
        inDoubt.forEach(claim -> gone.put(claim.id(), recordGone.getMessage()));
      } else {
        inDoubt.forEach(claim -> unknown.add(claim.id()));
        RelayLog.LOGGER.log(System.Logger.Level.WARNING, "could not tell whether " + inDoubt.size()
            + " entries in doubt already landed: " + RelayLog.describe(cause));
      }
    } catch (TimeoutException e) {
      if (answer != null) {
        answer.cancel(true); // past its deadline: the lane stops the look-up and frees what it holds
      }
      inDoubt.forEach(claim -> unknown.add(claim.id()));
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, "could not tell within " + wait + " whether "
          + inDoubt.size() + " entries in doubt already landed");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (answer != null) {
        answer.cancel(true);
      }
      inDoubt.forEach(claim -> unknown.add(claim.id()));
    } catch (RuntimeException e) {
      inDoubt.forEach(claim -> unknown.add(claim.id()));
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, "could not tell whether " + inDoubt.size()
          + " entries in doubt already landed: " + RelayLog.describe(e));
    }
  }

  /** Retires entries whose earlier send landed: they are not sent again. */
  private RelayResult retire(List<Claim> claims) {
    List<Claim> lost = settings.store().markDelivered(claims, settings.clock().instant());
    Set<UUID> lostIds = new HashSet<>();
    for (Claim claim : lost) {
      lostIds.add(claim.id());
      events.emit(l -> l.onClaimLost(claim.entry()));
    }
    for (Claim claim : claims) {
      if (!lostIds.contains(claim.id())) {
        events.emit(l -> l.onDelivered(claim.entry(), Duration.ZERO));
      }
    }
    return new RelayResult(0, 0, claims.size() - lost.size(), 0, 0, 0, lost.size());
  }

  private RelayResult quarantine(Claim claim, @Nullable String why) {
    QuarantineReason reason = QuarantineReason.permanentFailure(truncate("in doubt: an earlier send may have landed,"
        + " and that can no longer be told (" + why + "); requeue to send it again (a consumer may then see it twice)"
        + " or discard it"));
    if (settings.store().quarantine(claim, reason)) {
      events.emit(l -> l.onQuarantined(claim.entry(), reason.text()));
      return new RelayResult(0, 0, 0, 0, 0, 1, 0);
    }
    events.emit(l -> l.onClaimLost(claim.entry()));
    return new RelayResult(0, 0, 0, 0, 0, 0, 1);
  }

  private void release(Collection<Claim> claims, String what) {
    try {
      settings.store().release(claims);
    } catch (RuntimeException e) {
      RelayLog.LOGGER.log(System.Logger.Level.WARNING, "could not hand back " + claims.size() + " " + what
          + "; they are claimable again when their lease ends: " + RelayLog.describe(e));
    }
  }

  private static String truncate(String text) {
    return text.length() <= 2000 ? text : text.substring(0, 2000);
  }
}
