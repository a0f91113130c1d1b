package dev.outbox4j.chaos;

import java.time.Duration;
import java.util.Objects;

/**
 * What one chaos run injects and for how long. Times are offsets from the writers' start. Immutable.
 *
 * @param form {@code short} or {@code long}
 * @param writers writer processes
 * @param threadsPerWriter transactions in flight per writer process
 * @param writeFor how long the writers write
 * @param maxPause longest random pause between a transaction's write and its commit
 * @param rollbackShare share of transactions rolled back
 * @param keys ordinary keys
 * @param hotKeys hot keys
 * @param hotShare share of messages on the hot keys
 * @param relays relay processes
 * @param relaysAfter when the relays start (a backlog builds before)
 * @param relayKills SIGKILLs of a random relay, spread over the writing time, each followed by a restart
 * @param selfKills self-kills armed, spread over the writing time: each time, the next relay to see a commit of an
 *     atomic batch (without atomic batches, a confirmed message) SIGKILLs itself before the relay records it
 *     ({@link SelfKillingTransport}), and is restarted
 * @param databaseCrashAt when the database is crash-restarted
 * @param databaseDowntime how long it stays down
 * @param freezeAt when relay 0 is frozen (SIGSTOP) for two leases and a second, then resumed (SIGCONT)
 * @param outageAt when the proxy between relays and their destination is cut
 * @param outage how long it stays cut (longer than the retry budget)
 * @param lease the relays' lease (raised by a relay to its transport's bound if that is longer)
 * @param deliveryTimeout the relays' delivery timeout
 * @param retryBase the relays' first retry delay
 * @param retryCap the relays' longest retry delay
 * @param maxAttempts the relays' attempt budget: {@code outage} is far longer than these attempts take
 * @param giveUpAfter the relays' time budget for retrying one entry: {@code outage} is longer
 * @param drainTimeout how long the relays get, after the writers stop, to deliver everything
 */
record ChaosScenario(String form, int writers, int threadsPerWriter, Duration writeFor, Duration maxPause,
    double rollbackShare, int keys, int hotKeys, double hotShare, int relays, Duration relaysAfter, int relayKills,
    int selfKills, Duration databaseCrashAt, Duration databaseDowntime, Duration freezeAt, Duration outageAt, Duration outage,
    Duration lease, Duration deliveryTimeout, Duration retryBase, Duration retryCap, int maxAttempts,
    Duration giveUpAfter,
    Duration drainTimeout) {

  ChaosScenario {
    Objects.requireNonNull(form, "form");
    if (!outageAt.plus(outage).minus(writeFor).isNegative() || !freezeAt.minus(writeFor).isNegative()
        || !databaseCrashAt.minus(writeFor).isNegative()) {
      throw new IllegalArgumentException("every fault must start and end while the writers write: " + writeFor);
    }
    if (outage.compareTo(giveUpAfter) <= 0) {
      throw new IllegalArgumentException("the outage must outlast the retry budget " + giveUpAfter);
    }
  }

  /**
   * How each writer process writes: the writer's part of a scenario.
   *
   * @param threadsPerWriter transactions in flight per writer process
   * @param writeFor how long it writes
   * @param maxPause longest random pause between a transaction's write and its commit
   * @param rollbackShare share of transactions rolled back
   * @param keys ordinary keys
   * @param hotKeys hot keys
   * @param hotShare share of messages on the hot keys
   */
  record Writing(int threadsPerWriter, Duration writeFor, Duration maxPause, double rollbackShare, int keys,
      int hotKeys, double hotShare) {}

  /** @return how each writer process writes */
  Writing writing() {
    return new Writing(threadsPerWriter, writeFor, maxPause, rollbackShare, keys, hotKeys, hotShare);
  }

  /** The default build's form: about a minute per database, every fault once, fewer kills. */
  static ChaosScenario shortForm() {
    return new ChaosScenario("short", 2, 3, Duration.ofSeconds(42), Duration.ofMillis(40), 0.1, 40, 5, 0.5, 3,
        Duration.ofSeconds(3), 4, 0, Duration.ofSeconds(9), Duration.ofSeconds(2), Duration.ofSeconds(15),
        Duration.ofSeconds(27), Duration.ofSeconds(12), Duration.ofSeconds(3), Duration.ofSeconds(2),
        Duration.ofMillis(100), Duration.ofSeconds(1), 5, Duration.ofSeconds(8), Duration.ofSeconds(60));
  }

  /** {@code -Pchaos-long}: two and a half minutes of writing per run, 25 kills, a 40-second outage. */
  static ChaosScenario longForm() {
    return new ChaosScenario("long", 3, 3, Duration.ofSeconds(150), Duration.ofMillis(40), 0.1, 100, 5, 0.5, 3,
        Duration.ofSeconds(8), 25, 0, Duration.ofSeconds(40), Duration.ofSeconds(5), Duration.ofSeconds(70),
        Duration.ofSeconds(95), Duration.ofSeconds(40), Duration.ofSeconds(4), Duration.ofSeconds(2),
        Duration.ofMillis(100), Duration.ofSeconds(2), 5, Duration.ofSeconds(10), Duration.ofMinutes(3));
  }

  /**
   * The Kafka exactly-once scenario's short form: 30 kills in 45 seconds of writing (15 SIGKILLs, 15 self-kills after a
   * commit), at a gentler write rate than {@link #shortForm()} (one writer, longer pauses): the
   * relays' leases are raised to the transport's bound, so each fault strands its keys for a lease, and the backlog
   * must drain in the default build's time. The freeze comes before the outage, which must not stall its retries.
   */
  static ChaosScenario kafkaShortForm() {
    return new ChaosScenario("short", 1, 3, Duration.ofSeconds(45), Duration.ofMillis(80), 0.1, 40, 5, 0.3, 3,
        Duration.ofSeconds(3), 15, 15, Duration.ofSeconds(8), Duration.ofSeconds(2), Duration.ofSeconds(11),
        Duration.ofSeconds(33), Duration.ofSeconds(9), Duration.ofSeconds(3), Duration.ofSeconds(2),
        Duration.ofMillis(100), Duration.ofSeconds(1), 5, Duration.ofSeconds(8), Duration.ofSeconds(75));
  }

  /** The Kafka scenario's long form: four minutes of writing, 200 SIGKILLs and 80 self-kills armed after a commit. */
  static ChaosScenario kafkaLongForm() {
    return new ChaosScenario("long", 2, 3, Duration.ofSeconds(240), Duration.ofMillis(60), 0.1, 100, 5, 0.3, 3,
        Duration.ofSeconds(8), 200, 80, Duration.ofSeconds(40), Duration.ofSeconds(5), Duration.ofSeconds(70),
        Duration.ofSeconds(150), Duration.ofSeconds(40), Duration.ofSeconds(4), Duration.ofSeconds(2),
        Duration.ofMillis(100), Duration.ofSeconds(2), 5, Duration.ofSeconds(10), Duration.ofMinutes(3));
  }

  /** @return the Kafka scenario in the form named by {@code outbox4j.chaos.form} */
  static ChaosScenario currentKafka() {
    return isLong() ? kafkaLongForm() : kafkaShortForm();
  }

  /** @return the form named by the system property {@code outbox4j.chaos.form} ({@code short} unless set) */
  static ChaosScenario current() {
    return isLong() ? longForm() : shortForm();
  }

  /** @return whether the long form was asked for */
  static boolean isLong() {
    return "long".equals(System.getProperty("outbox4j.chaos.form", "short"));
  }
}
