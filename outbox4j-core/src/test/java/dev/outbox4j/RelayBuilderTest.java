package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RelayBuilderTest {
  private final RelayBuilder builder =
      Relay.builder(InMemoryOutboxStore.create(), InProcessTransport.consuming(m -> { }));

  @Test
  void the_delivery_timeout_must_stay_below_the_lease() {
    assertThatThrownBy(() -> builder.withLease(Duration.ofSeconds(5)).withDeliveryTimeout(Duration.ofSeconds(5)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deliveryTimeout")
        .hasMessageContaining("lease");
  }

  @Test
  void out_of_range_options_are_refused_by_name() {
    assertThatThrownBy(() -> builder.withBatchSize(0).build()).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> builder.withBatchSize(10).withMaxInFlight(0).build()).hasMessageContaining("maxInFlight");
    assertThatThrownBy(() -> builder.withMaxInFlight(1).withPollInterval(Duration.ofSeconds(2), Duration.ofSeconds(1))
        .build()).hasMessageContaining("maxPoll");
    assertThatThrownBy(() -> builder.withPollInterval(Duration.ofMillis(10), Duration.ofSeconds(1))
        .withBatchLinger(Duration.ofMillis(-1)).build()).hasMessageContaining("batchLinger");
    assertThatThrownBy(() -> builder.withBatchLinger(Duration.ZERO).withWorkers(0).build())
        .hasMessageContaining("workers");
  }

  @Test
  void a_relay_starts_once_and_closes_idempotently() {
    Relay relay = builder.build();
    relay.start();
    assertThat(relay.isRunning()).isTrue();
    assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);

    relay.close();
    relay.close();

    assertThat(relay.isRunning()).isFalse();
  }

  @Test
  void drain_refuses_a_non_positive_pass_count() {
    assertThatThrownBy(() -> builder.build().drain(0)).hasMessageContaining("maxPasses");
  }
}
