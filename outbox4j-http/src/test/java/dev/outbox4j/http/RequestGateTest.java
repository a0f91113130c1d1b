package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RequestGateTest {
  @Test
  void requests_beyond_the_limit_start_in_order_as_running_ones_end() {
    RequestGate gate = new RequestGate(2);
    List<Integer> started = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      int index = i;
      gate.submit(new CompletableFuture<>(), () -> started.add(index));
    }
    assertThat(started).containsExactly(0, 1);
    assertThat(gate.waiting()).isEqualTo(2);

    gate.release();
    assertThat(started).containsExactly(0, 1, 2);
    gate.release();
    gate.release();
    gate.release();
    assertThat(started).containsExactly(0, 1, 2, 3);
    assertThat(gate.running()).isZero();
  }

  @Test
  void a_waiting_request_whose_outcome_completed_is_never_started() {
    RequestGate gate = new RequestGate(1);
    List<String> started = new ArrayList<>();
    gate.submit(new CompletableFuture<>(), () -> started.add("first"));
    CompletableFuture<Object> expired = new CompletableFuture<>();
    gate.submit(expired, () -> started.add("expired"));
    gate.submit(new CompletableFuture<>(), () -> started.add("third"));
    expired.complete("timed out while waiting");

    gate.release();

    assertThat(started).containsExactly("first", "third");
    assertThat(gate.running()).isEqualTo(1);
  }

  @Test
  void the_limit_must_be_positive() {
    assertThatThrownBy(() -> new RequestGate(0)).hasMessageContaining("maxConcurrentRequests")
        .hasMessageContaining("0");
  }
}
