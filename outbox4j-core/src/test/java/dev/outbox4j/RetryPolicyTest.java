package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void exponential_delays_grow_by_the_multiplier_until_the_cap() {
    RetryPolicy policy = RetryPolicy.exponential().withBase(Duration.ofMillis(100)).withMultiplier(2)
        .withCap(Duration.ofMillis(700)).withJitter(false).build();

    assertThat(policy.delayAfter(1, 0.3)).isEqualTo(Duration.ofMillis(100));
    assertThat(policy.delayAfter(2, 0.3)).isEqualTo(Duration.ofMillis(200));
    assertThat(policy.delayAfter(3, 0.3)).isEqualTo(Duration.ofMillis(400));
    assertThat(policy.delayAfter(4, 0.3)).isEqualTo(Duration.ofMillis(700));
    assertThat(policy.delayAfter(400, 0.3)).isEqualTo(Duration.ofMillis(700));
  }

  @Test
  void full_jitter_draws_between_zero_and_the_computed_delay() {
    RetryPolicy policy = RetryPolicy.ofDefaults();

    assertThat(policy.delayAfter(3, 0.0)).isEqualTo(Duration.ZERO);
    assertThat(policy.delayAfter(3, 0.25)).isEqualTo(Duration.ofMillis(1000));
    assertThat(policy.delayAfter(30, 0.999)).isLessThanOrEqualTo(RetryPolicy.DEFAULT_CAP);
  }

  @Test
  void linear_delays_add_one_step_per_attempt_until_the_cap() {
    RetryPolicy policy = RetryPolicy.linear().withBase(Duration.ofSeconds(2)).withCap(Duration.ofSeconds(5)).build();

    assertThat(policy.delayAfter(1, 0.1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(policy.delayAfter(2, 0.1)).isEqualTo(Duration.ofSeconds(4));
    assertThat(policy.delayAfter(3, 0.1)).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void attempts_are_exhausted_at_the_maximum() {
    RetryPolicy policy = RetryPolicy.linear().withMaxAttempts(3).build();

    assertThat(policy.isExhausted(2)).isFalse();
    assertThat(policy.isExhausted(3)).isTrue();
  }

  @Test
  void out_of_range_options_are_refused_by_name() {
    assertThatThrownBy(() -> RetryPolicy.exponential().withBase(Duration.ZERO).build()).hasMessageContaining("base");
    assertThatThrownBy(() -> RetryPolicy.exponential().withMultiplier(0.5).build())
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> RetryPolicy.linear().withCap(Duration.ofSeconds(-1)).build()).hasMessageContaining("cap");
    assertThatThrownBy(() -> RetryPolicy.linear().withMaxAttempts(0).build()).hasMessageContaining("maxAttempts");
  }
}
