package dev.outbox4j.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What the two-outboxes run injects: two PostgreSQL clusters of the suite, an outbox in each, relay-app processes
 * draining both; one cluster (the crashing outbox's) stopped at once and started again several times, relays
 * SIGKILLed and restarted between those outages, writers writing into both outboxes throughout. Times are offsets from
 * the writers' first commits. Immutable.
 *
 * @param form {@code short} or {@code long}
 * @param writing how each writer process writes (one writer process per outbox)
 * @param relays relay processes, each with both outboxes
 * @param crashesAt when the crashing outbox's cluster is stopped ({@code pg_ctl stop -m immediate})
 * @param downtime how long it stays down at least; longer while a relay has not yet named the outbox DOWN (bounded)
 * @param killsAt when a relay is SIGKILLed (and restarted at once); between the outages and after the baseline, so
 *     the steady outbox's rates measure the outages and nothing else
 * @param baseline how long before the first outage the steady outbox's rate is taken as its rate before
 * @param rateWindow the windows an outage's rate is measured in
 * @param lease the relays' lease
 * @param deliveryTimeout the relays' delivery timeout
 * @param drainTimeout how long the relays get, after the writers stop, to deliver everything
 */
record TwoOutboxesScenario(String form, ChaosScenario.Writing writing, int relays, List<Duration> crashesAt,
    Duration downtime, List<Duration> killsAt, Duration baseline, Duration rateWindow, Duration lease,
    Duration deliveryTimeout, Duration drainTimeout) {

  /** The longest an outage is drawn out while waiting for every relay to name the outbox DOWN. */
  static final Duration LONGEST_OUTAGE = Duration.ofSeconds(30);

  TwoOutboxesScenario {
    Objects.requireNonNull(form, "form");
    crashesAt = List.copyOf(crashesAt);
    killsAt = List.copyOf(killsAt);
    if (crashesAt.isEmpty() || crashesAt.get(0).compareTo(baseline) < 0) {
      throw new IllegalArgumentException("the first outage must come after a baseline of " + baseline);
    }
    Duration firstCrash = crashesAt.get(0);
    Duration baselineFrom = firstCrash.minus(baseline);
    if (killsAt.stream().anyMatch(kill -> kill.compareTo(baselineFrom) >= 0 && kill.compareTo(firstCrash) < 0)) {
      throw new IllegalArgumentException("no kill in the baseline before the first outage");
    }
    if (!crashesAt.get(crashesAt.size() - 1).plus(downtime).minus(writing.writeFor()).isNegative()) {
      throw new IllegalArgumentException("every outage must start and end while the writers write");
    }
  }

  /** The default build's form: 60 s of writing, 2 relays, 2 outages of 6 s, 1 relay SIGKILLed. */
  static TwoOutboxesScenario shortForm() {
    return new TwoOutboxesScenario("short", writing(Duration.ofSeconds(60), 40), 2,
        List.of(Duration.ofSeconds(14), Duration.ofSeconds(30)), Duration.ofSeconds(6),
        List.of(Duration.ofSeconds(22)), Duration.ofSeconds(8), Duration.ofSeconds(2), Duration.ofSeconds(3),
        Duration.ofSeconds(2), Duration.ofSeconds(60));
  }

  /** {@code -Pchaos-long}: 150 s of writing, 3 relays, 3 outages of 10 s, 4 relays SIGKILLed. */
  static TwoOutboxesScenario longForm() {
    return new TwoOutboxesScenario("long", writing(Duration.ofSeconds(150), 100), 3,
        List.of(Duration.ofSeconds(30), Duration.ofSeconds(70), Duration.ofSeconds(110)), Duration.ofSeconds(10),
        List.of(Duration.ofSeconds(42), Duration.ofSeconds(50), Duration.ofSeconds(82), Duration.ofSeconds(122)),
        Duration.ofSeconds(15), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(2),
        Duration.ofMinutes(3));
  }

  private static ChaosScenario.Writing writing(Duration writeFor, int keys) {
    return new ChaosScenario.Writing(3, writeFor, Duration.ofMillis(40), 0.1, keys, 5, 0.5);
  }

  /** @return the form named by {@code outbox4j.chaos.form} */
  static TwoOutboxesScenario current() {
    return ChaosScenario.isLong() ? longForm() : shortForm();
  }
}
