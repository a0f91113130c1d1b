package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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

  /** A transport whose sends may land up to 14 s after they began (Kafka's defaults: max.block + delivery.timeout). */
  private static final Transport FOURTEEN_SECONDS = new Transport() {
    @Override
    public CompletionStage<DeliveryOutcome> deliver(Message message) {
      return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    }

    @Override
    public Duration maxAnswerTime() {
      return Duration.ofSeconds(14);
    }
  };

  @Test
  void a_delivery_timeout_shorter_than_the_transports_answer_bound_is_refused_naming_both() {
    assertThatThrownBy(() -> Relay.builder(InMemoryOutboxStore.create(), FOURTEEN_SECONDS)
        .withDeliveryTimeout(Duration.ofSeconds(10)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deliveryTimeout (PT10S)")
        .hasMessageContaining("maxAnswerTime (PT14S)");
  }

  @Test
  void a_lease_shorter_than_the_transports_answer_bound_is_refused_naming_both() {
    assertThatThrownBy(() -> Relay.builder(InMemoryOutboxStore.create(), FOURTEEN_SECONDS)
        .withLease(Duration.ofSeconds(12)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT12S")
        .hasMessageContaining("maxAnswerTime (PT14S)");
  }

  @Test
  void the_default_timeout_and_lease_grow_to_fit_the_transports_answer_bound() {
    Relay relay = Relay.builder(InMemoryOutboxStore.create(), FOURTEEN_SECONDS).build();

    assertThat(relay.flush()).isEqualTo(RelayResult.EMPTY);
  }

  @Test
  void out_of_range_options_are_refused_by_name() {
    assertThatThrownBy(() -> builder.withOutageBackoff(Duration.ZERO, Duration.ofSeconds(1)).build())
        .hasMessageContaining("outageBase");
    assertThatThrownBy(() -> builder.withOutageBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
        .hasMessageContaining("outageCap");
    builder.withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
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
