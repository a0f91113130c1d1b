package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The target checks and the soak's figures on fixed series (a 12-minute run sampled every minute, held from minute 2
 * to 10), and the command line's refusals.
 */
class HorizonTargetsTest {
  private static final HorizonOptions OPTIONS = HorizonOptions.parse(new String[] {"--sample-seconds", "60"}, false);

  @Test
  void a_held_run_that_keeps_up_hits_every_target() {
    HorizonRun.Series baseline = series(null, minute -> new double[] {800, 10, 2, 100, 1});
    HorizonRun.Series held = series(HorizonOptions.HoldKind.REPEATABLE_READ,
        minute -> new double[] {790, 15, minute <= 10 ? 2 + minute / 10.0 : 2, 100, 1.2});

    List<HorizonTargets.Check> checks = HorizonTargets.check(baseline, held);

    assertThat(checks).hasSize(5).allSatisfy(check -> assertThat(check.hit()).as(check.toString()).isTrue());
    assertThat(checks.get(0).measured()).isEqualTo("0.99 ×");
    assertThat(checks.get(1).measured()).isEqualTo("1.50 ×");
    assertThat(checks.get(2).measured()).isEqualTo("0 s");
    assertThat(checks.get(3).measured()).isEqualTo("1.30 ×"); // minute 10 (3.0 ms) ÷ minute 3 (2.3 ms)
    assertThat(checks.get(4).measured()).isEqualTo("1.20 ×");
  }

  @Test
  void a_held_run_that_falls_behind_misses_throughput_latency_claim_time_and_recovers_late() {
    HorizonRun.Series baseline = series(null, minute -> new double[] {800, 10, 2, 100, 1});
    // Delivers 600/s during the hold, its backlog grows by 12,000 a minute and drains by minute 12 only.
    HorizonRun.Series held = series(HorizonOptions.HoldKind.IDLE_AFTER_WRITE, minute -> minute > 2 && minute <= 10
        ? new double[] {600, 50, 2 * minute, 12_000 * (minute - 2), 2} : minute == 11
        ? new double[] {1_000, 50, 2, 50_000, 1} : new double[] {800, 10, 2, 100, 1});

    List<HorizonTargets.Check> checks = HorizonTargets.check(baseline, held);

    assertThat(checks).extracting(HorizonTargets.Check::hit).containsExactly(false, false, false, false, false);
    assertThat(checks.get(0).measured()).isEqualTo("0.75 ×");
    assertThat(checks.get(2).measured()).isEqualTo("120 s");
    assertThat(checks.get(3).measured()).isEqualTo("3.33 ×"); // 20 ms ÷ 6 ms
  }

  @Test
  void a_backlog_that_never_returns_to_the_baselines_level_is_a_miss_without_a_figure() {
    HorizonRun.Series baseline = series(null, minute -> new double[] {800, 10, 2, 100, 1});
    HorizonRun.Series held = series(HorizonOptions.HoldKind.REPEATABLE_READ,
        minute -> new double[] {800, 10, 2, minute > 2 ? 5_000 : 100, 1});

    HorizonTargets.Check recovery = HorizonTargets.check(baseline, held).get(2);

    assertThat(recovery.measured()).isEqualTo("not within the run");
    assertThat(recovery.hit()).isFalse();
  }

  @Test
  void the_soak_slope_is_the_least_squares_slope_over_minutes() {
    HorizonRun.Series soak = series(null, minute -> new double[] {1_000, 10, 3 + 0.5 * minute, 0, 1});

    assertThat(HorizonBench.slope(soak.samples(), HorizonSample::claimMillis)).isCloseTo(0.5, within(1e-9));
    assertThat(HorizonBench.soakFigures(soak)).contains("slope 0.5000 ms per minute");
  }

  @Test
  void bad_options_are_refused_with_the_option_named() {
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--hold-from", "10", "--hold-until", "2"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--hold-from and --hold-until");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--hold-until", "13"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("≤ --horizon-minutes");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--rate", "0"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rate must be 1..100000");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--holds", "serializable"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown held transaction 'serializable'");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--db", "oracle"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--db must be postgresql or mariadb");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--horizon-minutes", "soon"}, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--horizon-minutes needs a number");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--rate"}, true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--rate needs a value");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--fillfactor", "5"}, true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--fillfactor must be 10..100");
    assertThatThrownBy(() -> HorizonOptions.parse(new String[] {"--db", "mariadb", "--vacuum-threshold", "500"}, true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("are PostgreSQL settings");
  }

  @Test
  void the_defaults_are_the_issues_and_a_shortened_run_can_be_asked_for() {
    HorizonOptions defaults = HorizonOptions.parse(new String[0], false);
    HorizonOptions smoke = HorizonOptions.parse(new String[] {"--horizon-minutes", "1", "--hold-from", "0.2",
        "--hold-until", "0.6", "--rate", "200,400"}, false);

    assertThat(defaults.length()).isEqualTo(Duration.ofMinutes(12));
    assertThat(defaults.holdFrom()).isEqualTo(Duration.ofMinutes(2));
    assertThat(defaults.holdUntil()).isEqualTo(Duration.ofMinutes(10));
    assertThat(defaults.rates()).containsExactly(800);
    assertThat(defaults.holds()).containsExactly(HorizonOptions.HoldKind.values());
    assertThat(smoke.holdFrom()).isEqualTo(Duration.ofSeconds(12));
    assertThat(smoke.holdUntil()).isEqualTo(Duration.ofSeconds(36));
    assertThat(smoke.rates()).containsExactly(200, 400);
    assertThat(HorizonOptions.parse(new String[0], true).rates()).containsExactly(1_000);
  }

  /** Figures of one minute: delivered/s, p99 ms, claim ms, backlog, bystander ms. */
  private interface Minute {
    double[] figures(int minute);
  }

  /** A 12-minute run sampled every minute; every latency of a sample is its p99 figure (so the p99 is exact). */
  private static HorizonRun.Series series(HorizonOptions.HoldKind hold, Minute minute) {
    List<HorizonSample> samples = new ArrayList<>();
    for (int m = 1; m <= 12; m++) {
      double[] f = minute.figures(m);
      samples.add(new HorizonSample(m, hold != null && m > 2 && m <= 10, 800, f[0], f[2], 100, (long) f[3],
          new HorizonProbe.Horizon(0, 0), List.of(), new long[] {(long) (f[1] * 1e6)},
          new long[] {(long) (f[4] * 1e6)}));
    }
    return new HorizonRun.Series(new HorizonRun.Settings(hold == null ? "baseline" : "held", hold, 800, OPTIONS),
        samples, 576_000, 0, 0, 0, 0, "");
  }
}
