package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationFormatTest {

  @Test
  void a_duration_reads_as_its_two_largest_units() {
    assertThat(DurationFormat.format(Duration.ofSeconds(187))).isEqualTo("3m 7s");
    assertThat(DurationFormat.format(Duration.ofMillis(850))).isEqualTo("850ms");
    assertThat(DurationFormat.format(Duration.ofMinutes(125).plusSeconds(59))).isEqualTo("2h 5m");
    assertThat(DurationFormat.format(Duration.ofHours(28))).isEqualTo("1d 4h");
    assertThat(DurationFormat.format(Duration.ofMillis(3_200))).isEqualTo("3s 200ms");
  }

  @Test
  void a_unit_that_is_zero_is_left_out() {
    assertThat(DurationFormat.format(Duration.ofHours(2).plusSeconds(5))).isEqualTo("2h");
    assertThat(DurationFormat.format(Duration.ofMinutes(1))).isEqualTo("1m");
    assertThat(DurationFormat.format(Duration.ofHours(24))).isEqualTo("1d");
    assertThat(DurationFormat.format(Duration.ofSeconds(5))).isEqualTo("5s");
  }

  @Test
  void zero_tiny_negative_and_huge_durations_are_still_words() {
    assertThat(DurationFormat.format(Duration.ZERO)).isEqualTo("0s");
    assertThat(DurationFormat.format(Duration.ofNanos(400))).isEqualTo("<1ms");
    assertThat(DurationFormat.format(Duration.ofSeconds(-90))).isEqualTo("-1m 30s");
    assertThat(DurationFormat.format(Duration.ofSeconds(Long.MAX_VALUE))).endsWith("d");
  }
}
