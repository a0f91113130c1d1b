package dev.outbox4j.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one run of the {@code horizon} command (issue 25: a long transaction elsewhere, measured over time) or of the
 * {@code soak} command does, from the command line. Durations are given in minutes (decimals allowed, so a smoke run
 * can last one minute and hold from 0.2 to 0.6).
 *
 * @param db {@code postgresql} or {@code mariadb}
 * @param url the database's JDBC URL
 * @param user the database user (no password)
 * @param length how long the writers offer load in each run
 * @param holdFrom when the held transaction begins, from the start of the run
 * @param holdUntil when it ends
 * @param rates messages per second offered, one set of runs (baseline and each hold) per rate
 * @param holds the held transactions, one run each after the baseline; empty for the soak
 * @param sampleEvery the interval between samples
 * @param writers writer threads
 * @param restartEvery the soak's relay restart interval, or zero for none
 * @param keepDelivered how long delivered entries are kept before the relay purges them, or zero to delete them at
 *     delivery (the default retention)
 * @param vacuumThreshold PostgreSQL: the autovacuum threshold set on the outbox, key and claim tables (scale factor 0,
 *     cost delay 0), or zero to leave the server's settings; autovacuum itself must be on in the server
 * @param fillfactor PostgreSQL: the outbox table's fillfactor, or zero to leave it at 100
 */
record HorizonOptions(
    String db,
    String url,
    String user,
    Duration length,
    Duration holdFrom,
    Duration holdUntil,
    List<Integer> rates,
    List<HoldKind> holds,
    Duration sampleEvery,
    int writers,
    Duration restartEvery,
    Duration keepDelivered,
    int vacuumThreshold,
    int fillfactor) {

  /** The transaction another session holds open. */
  enum HoldKind {
    REPEATABLE_READ("repeatable-read", "REPEATABLE READ after one read"),
    IDLE_AFTER_WRITE("idle-after-write", "idle in transaction after a write");

    final String id;
    final String words;

    HoldKind(String id, String words) {
      this.id = id;
      this.words = words;
    }
  }

  HorizonOptions {
    rates = List.copyOf(rates);
    holds = List.copyOf(holds);
    if (!db.equals("postgresql") && !db.equals("mariadb")) {
      throw new IllegalArgumentException("--db must be postgresql or mariadb, was " + db);
    }
    if (length.compareTo(Duration.ofSeconds(10)) < 0) {
      throw new IllegalArgumentException("--horizon-minutes must be at least 10 s (0.17), was " + length);
    }
    if (holdFrom.isNegative() || holdFrom.compareTo(holdUntil) >= 0 || holdUntil.compareTo(length) > 0) {
      throw new IllegalArgumentException("--hold-from and --hold-until must satisfy 0 ≤ from < until ≤ "
          + "--horizon-minutes, were " + minutes(holdFrom) + " and " + minutes(holdUntil) + " of " + minutes(length));
    }
    if (rates.isEmpty() || rates.stream().anyMatch(rate -> rate < 1 || rate > 100_000)) {
      throw new IllegalArgumentException("--rate must be 1..100000 messages per second, was " + rates);
    }
    if (sampleEvery.compareTo(Duration.ofSeconds(1)) < 0 || sampleEvery.compareTo(length) > 0) {
      throw new IllegalArgumentException("--sample-seconds must be 1 s up to the run's length, was "
          + sampleEvery.toSeconds());
    }
    if (writers < 1 || writers > 64) {
      throw new IllegalArgumentException("--writers must be 1..64, was " + writers);
    }
    if (restartEvery.isNegative() || keepDelivered.isNegative()) {
      throw new IllegalArgumentException("--restart-minutes and --keep-minutes must not be negative");
    }
    if (vacuumThreshold < 0 || vacuumThreshold > 10_000_000) {
      throw new IllegalArgumentException("--vacuum-threshold must be 0..10000000 dead rows, was " + vacuumThreshold);
    }
    if (fillfactor != 0 && (fillfactor < 10 || fillfactor > 100)) {
      throw new IllegalArgumentException("--fillfactor must be 10..100 (or 0 to leave it), was " + fillfactor);
    }
    if (!db.equals("postgresql") && (vacuumThreshold != 0 || fillfactor != 0)) {
      throw new IllegalArgumentException("--vacuum-threshold and --fillfactor are PostgreSQL settings; --db was " + db);
    }
  }

  /** @return the JDBC URL of the service on this machine for {@code db} */
  static String defaultUrl(String db) {
    return db.equals("mariadb") ? "jdbc:mariadb://127.0.0.1:3306/test" : "jdbc:postgresql://127.0.0.1:5432/test";
  }

  static String usage(boolean soak) {
    return (soak ? """
        usage: BenchMain soak [--db postgresql|mariadb] [--url URL] [--user USER] [--horizon-minutes 30] [--rate 1000]
                              [--restart-minutes 2] [--keep-minutes 5] [--sample-seconds 10] [--writers 4]
                              [--vacuum-threshold 0] [--fillfactor 0]
          keyed writers at a fixed rate for the whole run, one relay restarted (closed and started again) every
          --restart-minutes, delivered entries kept --keep-minutes and purged by the relay
        """ : """
        usage: BenchMain horizon [--db postgresql|mariadb] [--url URL] [--user USER] [--horizon-minutes 12]
                                 [--hold-from 2] [--hold-until 10] [--rate 800[,2000]]
                                 [--holds repeatable-read,idle-after-write] [--sample-seconds 10] [--writers 4]
                                 [--vacuum-threshold 0] [--fillfactor 0]
          per rate: a baseline run, then one run per held transaction, each --horizon-minutes long; minutes may be
          decimals (smoke run: --horizon-minutes 1 --hold-from 0.2 --hold-until 0.6 --rate 200 --sample-seconds 5)
        """) + """
          PostgreSQL only: --vacuum-threshold N sets autovacuum on the outbox, key and claim tables to N dead rows
          (scale factor 0, cost delay 0; the server's autovacuum must be on); --fillfactor F sets the outbox table's
          fillfactor (10..100)
        """;
  }

  /**
   * @param args the command line after the command's name
   * @param soak whether these are the soak's options (other defaults, no held transaction)
   * @throws IllegalArgumentException naming the option that is unknown, lacks a value, or has a bad value
   */
  static HorizonOptions parse(String[] args, boolean soak) {
    String db = "postgresql";
    String url = null;
    String user = null;
    double minutes = soak ? 30 : 12;
    double from = 2;
    double until = 10;
    List<Integer> rates = List.of(soak ? 1_000 : 800);
    List<HoldKind> holds = soak ? List.of() : List.of(HoldKind.values());
    int sampleSeconds = 10;
    int writers = 4;
    double restart = soak ? 2 : 0;
    double keep = soak ? 5 : 0;
    int vacuumThreshold = 0;
    int fillfactor = 0;
    for (int i = 0; i < args.length; i += 2) {
      String option = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      String value = args[i + 1];
      switch (option) {
        case "--db" -> db = value.toLowerCase(Locale.ROOT);
        case "--url" -> url = value;
        case "--user" -> user = value;
        case "--horizon-minutes" -> minutes = decimal(option, value);
        case "--hold-from" -> from = decimal(option, value);
        case "--hold-until" -> until = decimal(option, value);
        case "--rate" -> {
          List<Integer> parsed = new ArrayList<>();
          for (String one : value.split(",")) {
            parsed.add((int) whole(option, one));
          }
          rates = parsed;
        }
        case "--holds" -> {
          if (soak) {
            throw new IllegalArgumentException("--holds is not an option of the soak");
          }
          List<HoldKind> parsed = new ArrayList<>();
          for (String one : value.split(",")) {
            parsed.add(List.of(HoldKind.values()).stream().filter(kind -> kind.id.equals(one)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--holds: unknown held transaction '" + one
                    + "'; known: repeatable-read, idle-after-write")));
          }
          holds = parsed;
        }
        case "--sample-seconds" -> sampleSeconds = (int) whole(option, value);
        case "--writers" -> writers = (int) whole(option, value);
        case "--restart-minutes" -> restart = decimal(option, value);
        case "--keep-minutes" -> keep = decimal(option, value);
        case "--vacuum-threshold" -> vacuumThreshold = (int) whole(option, value);
        case "--fillfactor" -> fillfactor = (int) whole(option, value);
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    if (soak) {
      from = 0;
      until = minutes; // no held transaction: the window of the checks is the whole run
    }
    return new HorizonOptions(db, url != null ? url : defaultUrl(db), user != null ? user : db.equals("mariadb")
        ? "root" : "postgres", ofMinutes(minutes), ofMinutes(from), ofMinutes(until), rates, holds,
        Duration.ofSeconds(sampleSeconds), writers, ofMinutes(restart), ofMinutes(keep), vacuumThreshold, fillfactor);
  }

  static double minutes(Duration duration) {
    return duration.toMillis() / 60_000.0;
  }

  private static Duration ofMinutes(double minutes) {
    return Duration.ofMillis(Math.round(minutes * 60_000));
  }

  private static double decimal(String option, String value) {
    try {
      double parsed = Double.parseDouble(value);
      if (!(parsed >= 0) || Double.isInfinite(parsed)) {
        throw new NumberFormatException();
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a number of minutes, zero or more, was '" + value + "'");
    }
  }

  private static long whole(String option, String value) {
    try {
      return Long.parseLong(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, was '" + value + "'");
    }
  }
}
