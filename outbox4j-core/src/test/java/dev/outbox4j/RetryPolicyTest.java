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
  void the_defaults_give_up_after_a_day_of_failures_whatever_the_attempt_count() {
    RetryPolicy policy = RetryPolicy.ofDefaults();

    assertThat(policy.maxAttempts()).isEqualTo(Integer.MAX_VALUE);
    assertThat(policy.givesUp(1_000_000, Duration.ofHours(23))).isFalse();
    assertThat(policy.givesUp(2, Duration.ofHours(24))).isTrue();
  }

  @Test
  void the_time_budget_never_ends_an_entry_on_its_first_failure_of_its_own() {
    RetryPolicy policy = RetryPolicy.exponential().withGiveUpAfter(Duration.ofMinutes(10)).build();

    assertThat(policy.givesUp(1, Duration.ofDays(3))).as("a backlog entry far past its budget, first failure").isFalse();
    assertThat(policy.givesUp(2, Duration.ofDays(3))).as("its second failure of its own").isTrue();
    assertThat(RetryPolicy.exponential().withMaxAttempts(1).build().givesUp(1, Duration.ZERO))
        .as("an attempt limit of one still gives up at once").isTrue();
  }

  @Test
  void an_attempt_limit_and_a_time_budget_give_up_at_whichever_comes_first() {
    RetryPolicy policy = RetryPolicy.linear().withMaxAttempts(5).withGiveUpAfter(Duration.ofMinutes(10)).build();

    assertThat(policy.givesUp(4, Duration.ofMinutes(9))).isFalse();
    assertThat(policy.givesUp(5, Duration.ofMinutes(1))).isTrue();
    assertThat(policy.givesUp(2, Duration.ofMinutes(10))).isTrue();
    assertThat(policy.givesUp(1, Duration.ofMinutes(-1))).isFalse();
  }

  @Test
  void out_of_range_options_are_refused_by_name() {
    assertThatThrownBy(() -> RetryPolicy.linear().withCap(Duration.ofDays(366)).build()).hasMessageContaining("cap");
    assertThatThrownBy(() -> RetryPolicy.linear().withGiveUpAfter(Duration.ZERO).build())
        .hasMessageContaining("giveUpAfter");
    assertThatThrownBy(() -> RetryPolicy.exponential().withBase(Duration.ZERO).build()).hasMessageContaining("base");
    assertThatThrownBy(() -> RetryPolicy.exponential().withMultiplier(0.5).build())
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> RetryPolicy.linear().withCap(Duration.ofSeconds(-1)).build()).hasMessageContaining("cap");
    assertThatThrownBy(() -> RetryPolicy.linear().withMaxAttempts(0).build()).hasMessageContaining("maxAttempts");
  }

  @Test
  void a_policy_describes_itself_the_way_it_is_configured() {
    assertThat(RetryPolicy.linear().withBase(Duration.ofSeconds(1)).withCap(Duration.ofSeconds(5)).withMaxAttempts(3)
        .build().describe()).isEqualTo("linear, step 1s, cap 5s, at most 3 attempts, give up after 1d");
    assertThat(RetryPolicy.ofDefaults().describe())
        .isEqualTo("exponential, base 1s, multiplier 2, cap 5m, jitter, give up after 1d");
    assertThat(RetryPolicy.exponential().withBase(Duration.ofMillis(250)).withMultiplier(1.5).withJitter(false)
        .withGiveUpAfter(Duration.ofMinutes(90)).withMaxAttempts(1).build().describe())
        .isEqualTo("exponential, base 250ms, multiplier 1.5, cap 5m, at most 1 attempt, give up after 1h 30m");
    assertThat(RetryPolicy.ofDefaults().toString()).isEqualTo("RetryPolicy[" + RetryPolicy.ofDefaults().describe() + "]");
  }
}
