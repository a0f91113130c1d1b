package dev.outbox4j.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ChaosReportTest {
  private final UUID a1 = UUID.randomUUID();
  private final UUID a2 = UUID.randomUUID();
  private final UUID a3 = UUID.randomUUID();
  private final UUID b1 = UUID.randomUUID();
  private final UUID rolledBack = UUID.randomUUID();
  private final Map<String, List<UUID>> commitOrder = Map.of("a", List.of(a1, a2, a3), "b", List.of(b1));

  @Test
  void arrivals_in_commit_order_per_key_with_keys_interleaved_break_no_promise() {
    ChaosReport.Delivery delivery = ChaosReport.judge(commitOrder, Set.of(rolledBack), List.of(a1, b1, a2, a3));

    assertThat(delivery).isEqualTo(new ChaosReport.Delivery(Set.of(), 0, 0, 0, 0, 0, 4, List.of(), Set.of()));
  }

  @Test
  void a_first_arrival_after_a_later_committed_message_of_its_key_is_an_order_violation() {
    ChaosReport.Delivery delivery = ChaosReport.judge(commitOrder, Set.of(), List.of(a2, a1, a3, b1));

    assertThat(delivery.orderViolations()).isEqualTo(1);
    assertThat(delivery.examples()).singleElement().asString().contains(a1.toString());
  }

  @Test
  void a_redelivery_is_a_duplicate_and_a_late_copy_only_when_a_later_message_of_its_key_came_first() {
    ChaosReport.Delivery delivery = ChaosReport.judge(commitOrder, Set.of(), List.of(a1, a1, a2, a1, a3, b1));

    assertThat(delivery.duplicates()).isEqualTo(2);
    assertThat(delivery.lateCopies()).isEqualTo(1);
    assertThat(delivery.lateCopied()).containsExactly(a1);
    assertThat(delivery.orderViolations()).isZero();
  }

  @Test
  void committed_but_never_received_is_lost_and_received_but_rolled_back_or_unknown_is_counted_apart() {
    ChaosReport.Delivery delivery = ChaosReport.judge(commitOrder, Set.of(rolledBack),
        List.of(a1, rolledBack, UUID.randomUUID(), a2, b1));

    assertThat(delivery.lost()).isEqualTo(1);
    assertThat(delivery.rolledBackDelivered()).isEqualTo(1);
    assertThat(delivery.unknownDelivered()).isEqualTo(1);
  }

  @Test
  void a_row_deleted_within_an_operator_call_is_discarded_and_one_delivered_after_its_deletion_is_counted() {
    Instant t = Instant.parse("2026-12-03T20:00:00Z");
    List<ChaosOperator.Window> calls = List.of(new ChaosOperator.Window(t, t.plusMillis(10)));
    UUID neverArrived = UUID.randomUUID();
    UUID arrivedAfter = UUID.randomUUID();
    UUID arrivedBefore = UUID.randomUUID();
    UUID deletedOutsideEveryCall = UUID.randomUUID();
    Map<UUID, Instant> deleted = Map.of(neverArrived, t.plusMillis(1), arrivedAfter, t.plusMillis(2),
        arrivedBefore, t.plusMillis(3), deletedOutsideEveryCall, t.plusSeconds(1));
    Map<UUID, List<Instant>> arrivals = Map.of(arrivedAfter, List.of(t.plusMillis(50)),
        arrivedBefore, List.of(t.minusSeconds(2)), deletedOutsideEveryCall, List.of());

    ChaosReport.Discards discards = ChaosReport.judgeDiscards(deleted, calls, arrivals);

    assertThat(discards.discarded()).containsExactlyInAnyOrder(neverArrived, arrivedAfter, arrivedBefore);
    assertThat(discards.deliveredAfter()).isEqualTo(1);
    assertThat(discards.deliveredBefore()).isEqualTo(1);
    assertThat(discards.deletedBehindTheOperator()).isEqualTo(1);
    assertThat(discards.examples()).singleElement().asString().contains(arrivedAfter.toString());
  }
}
