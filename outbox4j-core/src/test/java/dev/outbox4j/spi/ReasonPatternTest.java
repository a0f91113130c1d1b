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
        .isEqualTo("HTTP # from https://erp.example/erp after # ms");
    assertThat(ReasonPattern.of("order 0190f5a2-7c1e-7d40-8a9b-2b8e1f0c9d3e rejected at 2024-05-01T10:15:30.123Z"))
        .isEqualTo("order <id> rejected at <time>");
    assertThat(ReasonPattern.of("at 2024-05-01 10:15:30+02:00 object java.lang.Object@1b6d3586 at 0x7ffe12"))
        .isEqualTo("at <time> object java.lang.Object@<hex> at <hex>");
    assertThat(ReasonPattern.of("took 1,250.5 ms on 10.0.0.5:8080")).isEqualTo("took # ms on #:#");
    assertThat(ReasonPattern.of("  connection\\n refused \\t by  broker ")).isEqualTo("connection\\n refused \\t by broker");
    assertThat(ReasonPattern.of("connection\n refused \t by  broker ")).isEqualTo("connection refused by broker");
    assertThat(ReasonPattern.of("deadline exceeded")).as("a word of hex letters only is a word")
        .isEqualTo("deadline exceeded");
    assertThat(ReasonPattern.of(null)).isEmpty();
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
        QuarantineKind.RETRIES_EXHAUSTED, "HTTP # after # ms"));
  }
}
