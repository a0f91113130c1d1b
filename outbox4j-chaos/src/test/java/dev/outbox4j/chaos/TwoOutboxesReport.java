package dev.outbox4j.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the two-outboxes run found: each outbox judged as every chaos run is ({@link ChaosReport}: lost, invented,
 * reordered, stuck, quarantined, late copies), the steady outbox's delivery rate during each outage of the other
 * against its rate before the first, and what the relays' readiness said during each outage. Immutable.
 *
 * @param label database / transport / form
 * @param steady the outbox whose database stays up
 * @param crashing the outbox whose database is crash-restarted
 * @param rateBefore the steady outbox's deliveries per second before the first outage
 * @param outages each outage of the crashing outbox's database, in order
 * @param relayKills SIGKILLs of relays
 * @param relayCrashes relay processes that ended on their own
 * @param seconds wall-clock length of the run
 */
record TwoOutboxesReport(String label, ChaosReport steady, ChaosReport crashing, double rateBefore,
    List<Outage> outages, int relayKills, int relayCrashes, long seconds) {

  /** The least share of its rate before that the steady outbox keeps during an outage of the other. */
  static final double LEAST_RATE_RATIO = 0.5;

  TwoOutboxesReport {
    outages = List.copyOf(outages);
  }

  /**
   * One outage of the crashing outbox's database, from its stop to its restart's end.
   *
   * @param from when the stop began
   * @param until when the database accepted connections again
   * @param rate the steady outbox's deliveries per second in that time, as far as the writers still wrote; NaN when
   *     the outage began too late for a window of it (a loaded machine delayed it past the writing time)
   * @param windowRates its deliveries per second in each whole window of that time (none when not measured)
   * @param relaysWatched relay processes that were running when the outage began
   * @param namedDown of those, the ones whose readiness named the crashing outbox {@code DOWN} while it was down
   * @param stayedUp whether every relay process kept running through the outage (none ended on its own)
   * @param namedAfter how long after the stop the last of them named it {@code DOWN}; {@code null} if one never did
   */
  record Outage(Instant from, Instant until, double rate, List<Double> windowRates, int relaysWatched, int namedDown,
      boolean stayedUp, @org.jspecify.annotations.Nullable Duration namedAfter) {
    Outage {
      windowRates = List.copyOf(windowRates);
    }

    /** @return whether every relay running named the outbox DOWN and stayed up */
    boolean named() {
      return stayedUp && relaysWatched > 0 && namedDown == relaysWatched;
    }
  }

  /**
   * Deliveries per second of messages whose first arrival falls in {@code [from, until)}.
   *
   * @param firstArrivals first arrival of every message, any order
   */
  static double rate(Collection<Instant> firstArrivals, Instant from, Instant until) {
    long count = firstArrivals.stream().filter(at -> !at.isBefore(from) && at.isBefore(until)).count();
    return count / (Duration.between(from, until).toMillis() / 1000.0);
  }

  /** @return the rates of the whole windows of {@code window} in {@code [from, until)} */
  static List<Double> windowRates(Collection<Instant> firstArrivals, Instant from, Instant until, Duration window) {
    List<Double> rates = new ArrayList<>();
    for (Instant start = from; !start.plus(window).isAfter(until); start = start.plus(window)) {
      rates.add(rate(firstArrivals, start, start.plus(window)));
    }
    return rates;
  }

  /** @return each outage's rate of the steady outbox over its rate before; NaN for an outage not measured */
  List<Double> ratios() {
    return outages.stream().map(outage -> outage.rate() / rateBefore).toList();
  }

  /** @return the ratios of the outages measured (begun while the writers wrote) */
  List<Double> measuredRatios() {
    return ratios().stream().filter(ratio -> !ratio.isNaN()).toList();
  }

  /** @return the lowest window's rate of the steady outbox, over all outages, over its rate before */
  double lowestWindowRatio() {
    return outages.stream().flatMap(outage -> outage.windowRates().stream()).mapToDouble(Double::doubleValue).min()
        .orElse(0) / rateBefore;
  }

  /** @return outages in which every relay named the crashing outbox DOWN and stayed up */
  long namedDown() {
    return outages.stream().filter(Outage::named).count();
  }

  /**
   * @return whether every promise held: both outboxes kept every delivery promise, the steady one kept at least
   *     {@value #LEAST_RATE_RATIO} of its rate in every outage measured (the first one at least), every outage was named DOWN, no relay ended on its own
   */
  boolean kept() {
    return steady.kept() && crashing.kept() && rateBefore > 0
        && !measuredRatios().isEmpty() && measuredRatios().stream().allMatch(ratio -> ratio >= LEAST_RATE_RATIO)
        && namedDown() == outages.size()
        && relayCrashes == 0;
  }

  /** @return the one-line summary the docs quote */
  String summary() {
    return "chaos " + label + ": steady(" + figures(steady) + ") crashing(" + figures(crashing) + ") outages="
        + outages.size() + " namedDown=" + namedDown() + "/" + outages.size() + " rate(before=" + format(rateBefore)
        + "/s ratios=" + ratios().stream().map(TwoOutboxesReport::format).collect(Collectors.joining(","))
        + " lowestWindow=" + format(lowestWindowRatio()) + ") relayKills=" + relayKills + " relayCrashes="
        + relayCrashes + " seconds=" + seconds + (kept() ? " PASS" : " FAIL");
  }

  private static String figures(ChaosReport lane) {
    return "committed=" + lane.committed() + " rolledBack=" + lane.rolledBack() + " received=" + lane.received()
        + " lost=" + lane.lost() + " (marked delivered " + lane.vanished() + ") rolledBackDelivered="
        + lane.rolledBackDelivered() + " invented=" + lane.unknownDelivered() + " orderViolations="
        + lane.orderViolations() + " stuck=" + lane.stuck() + " quarantined=" + lane.quarantined() + " duplicates="
        + lane.duplicates() + " lateCopies=" + lane.lateCopies();
  }

  private static String format(double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.2f", value);
  }
}
