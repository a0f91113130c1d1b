package dev.outbox4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.ClaimStrategy;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's rows per claim strategy come from the enum: every value gets its own ids and titles. */
class ClaimNamesTest {

  @Test
  void the_reference_strategy_keeps_the_plain_ids_and_every_other_value_adds_its_own_name() {
    assertThat(ClaimNames.idSuffix(ClaimNames.REFERENCE)).isEmpty();
    assertThat(ClaimNames.titleSuffix(ClaimNames.REFERENCE)).isEmpty();
    assertThat(ClaimNames.alternatives()).doesNotContain(ClaimNames.REFERENCE)
        .hasSize(ClaimStrategy.values().length - 1);
    for (ClaimStrategy claims : ClaimNames.alternatives()) {
      assertThat(ClaimNames.idSuffix(claims)).matches("-[a-z0-9]+(-[a-z0-9]+)*")
          .isEqualTo("-" + String.join("-", ClaimNames.words(claims).split(" ")));
      assertThat(ClaimNames.titleSuffix(claims)).isEqualTo(", claims as " + ClaimNames.words(claims));
    }
  }

  @Test
  void no_two_strategies_share_an_id() {
    List<String> suffixes = Arrays.stream(ClaimStrategy.values()).map(ClaimNames::idSuffix).toList();

    assertThat(suffixes).doesNotHaveDuplicates();
  }
}
