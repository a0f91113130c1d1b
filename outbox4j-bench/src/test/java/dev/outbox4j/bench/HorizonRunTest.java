package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.testing.RunDatabases;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 15-second horizon run on each real database (100 msgs/s, an idle-in-transaction hold from second 3 to 9, samples
 * every 3 s): every message arrives once and in key order, every sample has its series, and the held transaction shows
 * in the samples taken while it was open. No timing is asserted.
 */
class HorizonRunTest {
  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "mariadb"})
  void a_short_run_delivers_everything_in_order_and_its_samples_see_the_held_transaction(String db) throws Exception {
    HorizonOptions options = HorizonOptions.parse(new String[] {"--db", db, "--url",
        db.equals("mariadb") ? RunDatabases.mariadbUrl() : RunDatabases.postgresUrl(), "--horizon-minutes", "0.25",
        "--hold-from", "0.05", "--hold-until", "0.15", "--rate", "100", "--sample-seconds", "3"}, false);

    HorizonRun.Series series = HorizonRun.run(HorizonProbe.of(options),
        new HorizonRun.Settings("held", HorizonOptions.HoldKind.IDLE_AFTER_WRITE, 100, options));
    List<HorizonSample> samples = series.samples();
    List<HorizonSample> held = samples.stream().filter(HorizonSample::held).toList();

    assertThat(series.written()).isEqualTo(1_500);
    assertThat(series.lost()).isZero();
    assertThat(series.duplicates()).isZero();
    assertThat(series.reordered()).isZero();
    assertThat(samples).extracting(HorizonSample::minutes).containsExactly(0.05, 0.1, 0.15, 0.2, 0.25);
    assertThat(held).isNotEmpty();
    assertThat(samples).allSatisfy(sample -> {
      assertThat(sample.bystanderNanos()).isNotEmpty();
      assertThat(sample.relations()).anySatisfy(relation -> {
        assertThat(relation.name()).isEqualTo(HorizonProbe.PREFIX + "outbox");
        assertThat(relation.index()).isFalse();
        assertThat(relation.bytes()).isPositive();
      });
    });
    // The samples cover the run's length; the last few deliveries may land after the last sample.
    assertThat(samples.stream().mapToLong(sample -> sample.latencyNanos().length).sum()).isBetween(1_400L, 1_500L);
    assertThat(held.stream().mapToDouble(sample -> sample.horizon().oldestTransactionSeconds()).max().orElse(0))
        .isGreaterThanOrEqualTo(2);
    if (db.equals("postgresql")) {
      assertThat(held.stream().mapToDouble(sample -> sample.horizon().age()).max().orElse(0)).isGreaterThan(100);
      assertThat(samples.get(samples.size() - 1).deadTuples()).isNotNegative();
    }
  }
}
