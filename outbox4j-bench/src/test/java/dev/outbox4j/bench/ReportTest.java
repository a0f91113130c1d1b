package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.ClaimStrategy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ratios table: a row per claim strategy, and the range the runs allow next to each value. */
class ReportTest {

  @Test
  void the_ratios_name_every_claim_strategy_and_show_the_range_the_runs_allow() {
    Report report = new Report();
    report.add(Figures.twoRuns("ceiling-delete", "1 ceiling", 10_000, 20_000));
    report.add(Figures.twoRuns("outbox4j-drain-delete", "2 outbox4j", 8_000, 12_000));

    String ratios = report.ratios();

    for (ClaimStrategy claims : ClaimStrategy.values()) {
      assertThat(ratios).contains("outbox4j (1 relay, unordered" + ClaimNames.titleSuffix(claims) + ") / ceiling");
    }
    // median 10,000 / 15,000; lowest 8,000 / 20,000; highest 12,000 / 10,000
    assertThat(ratios).contains("| drain, delete mode: outbox4j (1 relay, unordered) / ceiling DELETE | 0.67 × |"
        + " 0.40–1.20 | ≥ 0.7 × | **miss** |");
  }

  @Test
  void a_ratio_of_single_runs_or_without_data_shows_no_range() {
    Report report = new Report();
    report.add(new ScenarioResult("ceiling-delete", "1 ceiling", List.of(Figures.rate(20_000))));
    report.add(new ScenarioResult("outbox4j-drain-delete", "2 outbox4j", List.of(Figures.rate(10_000))));
    report.add(new ScenarioResult("claim-raw-small", "7 raw small", List.of(Figures.rate(1_000))));
    report.add(new ScenarioResult("claim-raw-large", "7 raw large", List.of(Figures.rate(1_000))));

    String ratios = report.ratios();

    assertThat(ratios).contains("| drain, delete mode: outbox4j (1 relay, unordered) / ceiling DELETE | 0.50 × | — |");
    assertThat(ratios).contains("| claim cost growth: raw claim at large / small backlog (reference) | NaN × | — |")
        .doesNotContain("NaN–");
  }
}
