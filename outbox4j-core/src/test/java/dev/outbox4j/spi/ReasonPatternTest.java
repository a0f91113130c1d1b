package dev.outbox4j.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.QuarantineKind;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ReasonPatternTest {

  @Test
  void numbers_ids_hex_and_timestamps_are_taken_out_and_words_are_kept() {
    assertThat(ReasonPattern.of("HTTP 503 from https://erp.example/erp after 1234 ms"))
        .isEqualTo("HTTP # from https://erp.example/erp after <duration>");
    assertThat(ReasonPattern.of("order 0190f5a2-7c1e-7d40-8a9b-2b8e1f0c9d3e rejected at 2024-05-01T10:15:30.123Z"))
        .isEqualTo("order <id> rejected at <time>");
    assertThat(ReasonPattern.of("at 2024-05-01 10:15:30+02:00 object java.lang.Object@1b6d3586 at 0x7ffe12"))
        .isEqualTo("at <time> object java.lang.Object@<hex> at <hex>");
    assertThat(ReasonPattern.of("took 1,250.5 ms on 10.0.0.5:8080")).isEqualTo("took <duration> on #:#");
    assertThat(ReasonPattern.of("  connection\\n refused \\t by  broker ")).isEqualTo("connection\\n refused \\t by broker");
    assertThat(ReasonPattern.of("connection\n refused \t by  broker ")).isEqualTo("connection refused by broker");
    assertThat(ReasonPattern.of("deadline exceeded")).as("a word of hex letters only is a word")
        .isEqualTo("deadline exceeded");
    assertThat(ReasonPattern.of(null)).isEqualTo(ReasonPattern.NO_REASON);
  }

  @Test
  void durations_however_written_counts_and_plurals_fall_into_one_pattern() {
    String pattern = ReasonPattern.of("gave up after 3 attempts over 16s 10ms; last error: timeout");
    assertThat(pattern).isEqualTo("gave up after # attempt over <duration>; last error: timeout");
    for (String reason : List.of("gave up after 1 attempt over 16s; last error: timeout",
        "gave up after 12 attempts over 1m 2s; last error: timeout",
        "gave up after 2 attempts over 850 ms; last error: timeout",
        "gave up after 2 attempts over <1ms; last error: timeout",
        "gave up after 2 attempts over 3 seconds; last error: timeout",
        "gave up after 2 attempts over 1h, 5m; last error: timeout",
        "gave up after 2 attempts over PT16.01S; last error: timeout")) {
      assertThat(ReasonPattern.of(reason)).as(reason).isEqualTo(pattern);
    }
    assertThat(ReasonPattern.of("3 entries of 1 key")).isEqualTo(ReasonPattern.of("1 entry of 4 keys"))
        .isEqualTo("# entry of # key");
    assertThat(ReasonPattern.of("1 class, 2 is, 3 was")).as("short words and -ss kept")
        .isEqualTo("# class, # is, # was");
    assertThat(ReasonPattern.of("3 messages to 5 mailboxes")).as("a word starting with a unit's letters is a word")
        .isEqualTo("# message to # mailboxe");
    assertThat(ReasonPattern.of("object java.lang.Object@1b6d3586d")).isEqualTo("object java.lang.Object@<hex>");
  }

  @Test
  void no_reason_is_a_pattern_of_its_own_never_an_empty_one() {
    assertThat(ReasonPattern.of(null)).isEqualTo("(no reason recorded)");
    assertThat(ReasonPattern.of(" \n\t")).isEqualTo("(no reason recorded)");
    assertThat(ReasonPattern.of("")).isEqualTo("(no reason recorded)");
  }

  @Test
  void two_reasons_that_differ_only_in_what_varies_share_a_pattern() {
    assertThat(ReasonPattern.of("gave up after 3 attempts over 3 s; last error: HTTP 503 from …/erp after 1234 ms"))
        .isEqualTo(ReasonPattern.of("gave up after 7 attempts over 41 s; last error: HTTP 503 from …/erp after 88 ms"));
  }

  @Test
  void a_selector_names_at_most_a_groups_worth_of_ids_and_never_none() {
    assertThatThrownBy(() -> QuarantineSelector.ofIds(List.of())).isInstanceOf(IllegalArgumentException.class);
    List<UUID> tooMany = IntStream.range(0, QuarantineSelector.MAX_IDS + 1).mapToObj(i -> UUID.randomUUID()).toList();
    assertThatThrownBy(() -> QuarantineSelector.ofIds(tooMany)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new QuarantineSelector(null, null, null, null, "", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void a_group_selector_matches_its_members_only() {
    UUID id = UUID.randomUUID();
    QuarantineGroups.Member member = new QuarantineGroups.Member(id, "k", "erp", EntryStatus.QUARANTINED,
        QuarantineKind.RETRIES_EXHAUSTED, "HTTP 503 after 12 ms");
    QuarantineGroup group = QuarantineGroups.of(List.of(member), 1).groups().get(0);

    assertThat(QuarantineSelector.ofGroup(group).matches(member)).isTrue();
    assertThat(QuarantineSelector.ofGroup(group).withIds(Set.of(UUID.randomUUID())).matches(member)).isFalse();
    assertThat(QuarantineSelector.ofGroup(group).matches(new QuarantineGroups.Member(id, "k", "erp",
        EntryStatus.QUARANTINED, QuarantineKind.RETRIES_EXHAUSTED, "connection refused after 12 ms"))).isFalse();
    assertThat(QuarantineSelector.ofGroup(group).matches(new QuarantineGroups.Member(id, "k", "erp",
        EntryStatus.PENDING, QuarantineKind.RETRIES_EXHAUSTED, "HTTP 503 after 12 ms"))).isFalse();
    assertThat(group.id()).hasSize(16).isEqualTo(QuarantineGroup.idOf("erp", EntryStatus.QUARANTINED,
        QuarantineKind.RETRIES_EXHAUSTED, "HTTP # after <duration>"));
  }
}
