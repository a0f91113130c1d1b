package dev.outbox4j.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class OutboxStatsTest {
  private static final Instant T = Instant.parse("2026-12-06T00:00:00Z");

  private static OutboxStats counting(long waiting, long blocked, long quarantined) {
    return new OutboxStats(waiting, blocked, 0, quarantined, waiting == 0 ? null : T, blocked == 0 ? null : T);
  }

  @Test
  void a_reader_keeps_its_interval_while_the_backlog_is_small() {
    assertThat(OutboxStats.EMPTY.readingPace(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
    assertThat(counting(10_000, 0, 0).readingPace(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
    assertThat(counting(40_000, 0, 0).readingPace(Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void a_large_backlog_spaces_the_readings_a_second_per_ten_thousand_entries_counted() {
    assertThat(counting(60_000, 0, 0).readingPace(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(6));
    assertThat(counting(50_000, 9_000, 1_000).readingPace(Duration.ofSeconds(1)))
        .as("waiting, blocked and quarantined are all read").isEqualTo(Duration.ofSeconds(6));
    assertThat(counting(25_000, 0, 0).readingPace(Duration.ofSeconds(1))).isEqualTo(Duration.ofMillis(2500));
  }

  @Test
  void a_very_large_backlog_spaces_them_half_a_minute_at_most() {
    assertThat(counting(1_000_000, 0, 0).readingPace(Duration.ofSeconds(1))).isEqualTo(OutboxStats.READING_PACE_LIMIT);
    assertThat(counting(Long.MAX_VALUE / 4, 0, 0).readingPace(Duration.ofSeconds(1)))
        .isEqualTo(OutboxStats.READING_PACE_LIMIT);
    assertThat(counting(1_000_000, 0, 0).readingPace(Duration.ofMinutes(2)))
        .as("a longer interval is kept").isEqualTo(Duration.ofMinutes(2));
  }
}
