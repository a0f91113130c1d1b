package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The runner of the claim-protocol property on a toy world: a log of letters, an invariant broken by an {@code a}
 * followed later by a {@code b}, and letters {@code c}..{@code f} as noise. An {@code f} applies only after an {@code e}.
 */
class ActionChainsTest {
  /** The toy world: the letters run so far. */
  private static final class Letters {
    final List<String> log = new ArrayList<>();
  }

  private record Letter(String letter) implements ActionChains.Action<Letters> {
    @Override
    public String describe() {
      return letter;
    }

    @Override
    public boolean possible(Letters world) {
      return !letter.equals("f") || world.log.contains("e");
    }

    @Override
    public void run(Letters world) {
      if (letter.equals("b") && world.log.contains("a")) {
        throw new AssertionError("[a-then-b] b after a, log " + world.log);
      }
      if (letter.equals("f") && world.log.size() > 30) {
        throw new AssertionError("[long-f] an f after 30 letters");
      }
      world.log.add(letter);
    }
  }

  private static final List<String> ALPHABET = List.of("a", "b", "c", "d", "e", "f");

  private final ActionChains<Letters> chains = new ActionChains<>(Letters::new,
      (Random random) -> new Letter(ALPHABET.get(random.nextInt(ALPHABET.size()))), 30,
      ActionChains.ShrinkBudget.DEFAULT);

  @Test
  void a_failing_chain_is_shrunk_to_its_minimal_form() {
    ActionChains.Found found = chains.check(100, 42L).orElseThrow();

    assertThat(found.original().size()).isGreaterThan(2);
    assertThat(found.shrunk()).extracting(ActionChains.Action::describe).containsExactly("a", "b");
    assertThat(found.shrunkFailure().invariant()).isEqualTo("a-then-b");
    assertThat(found.reruns()).isLessThanOrEqualTo(200);
    assertThat(found.report()).contains("SHRUNK to 2 of " + found.original().size() + " actions")
        .contains("-Doutbox4j.property.seed=" + found.trySeed() + " -Doutbox4j.property.tries=1");
  }

  @Test
  void a_tries_seed_replays_the_same_chain_and_failure() {
    ActionChains.Found found = chains.check(100, 7L).orElseThrow();

    ActionChains.Found replayed = chains.check(1, found.trySeed()).orElseThrow();

    assertThat(replayed.tryNumber()).isEqualTo(1);
    assertThat(replayed.original()).isEqualTo(found.original());
    assertThat(replayed.shrunk()).isEqualTo(found.shrunk());
    assertThat(chains.chain(found.trySeed())).isEqualTo(found.original());
    assertThat(chains.check(found.tryNumber(), 7L).orElseThrow().original()).isEqualTo(found.original());
  }

  @Test
  void shrinking_keeps_only_removals_that_fail_with_the_same_invariant() {
    // e, 30 noise letters, a, f, b: the f breaks long-f; a shorter prefix lets the f pass and the b break a-then-b
    List<ActionChains.Action<Letters>> chain = new ArrayList<>();
    chain.add(new Letter("e"));
    for (int i = 0; i < 30; i++) {
      chain.add(new Letter(i % 2 == 0 ? "c" : "d"));
    }
    chain.addAll(List.of(new Letter("a"), new Letter("f"), new Letter("b")));
    ActionChains.Failure failure = chains.runOnce(chain);
    assertThat(failure).isNotNull();
    assertThat(failure.invariant()).isEqualTo("long-f");

    ActionChains.Found found = chains.shrink(0, 1, 0, Duration.ZERO, chain, failure);

    assertThat(found.shrunkFailure().invariant()).isEqualTo("long-f");
    assertThat(found.shrunk()).extracting(ActionChains.Action::describe).startsWith("e").endsWith("f")
        .doesNotContain("b").hasSize(32);
  }

  @Test
  void an_action_whose_precondition_does_not_hold_is_skipped() {
    ActionChains.Failure failure = chains.runOnce(List.of(new Letter("f"), new Letter("a"), new Letter("b")));

    assertThat(failure).isNotNull();
    assertThat(failure.error()).hasMessageContaining("log [a]");
  }

  @Test
  void a_candidate_with_a_concurrent_action_counts_as_failing_if_one_of_its_attempts_failed() {
    // a race that is lost every other time it runs: the first attempt of each candidate passes, the second fails
    int[] runs = {0};
    ActionChains.Action<Letters> race = new ActionChains.Action<>() {
      @Override
      public String describe() {
        return "race";
      }

      @Override
      public boolean concurrent() {
        return true;
      }

      @Override
      public void run(Letters world) {
        if (runs[0]++ % 2 == 0) {
          throw new AssertionError("[lost-race] the race was lost");
        }
      }
    };
    List<ActionChains.Action<Letters>> chain = new ArrayList<>(List.of(new Letter("c"), new Letter("d"),
        new Letter("e"), new Letter("c")));
    chain.add(race);
    chain.add(new Letter("c")); // after the failing step: never runs, dropped before any re-run
    ActionChains.Failure failure = chains.runOnce(chain);
    assertThat(failure).isNotNull();

    ActionChains.Found found = chains.shrink(0, 1, 0, Duration.ZERO, chain, failure);

    assertThat(found.shrunk()).extracting(ActionChains.Action::describe).containsExactly("race");
    assertThat(found.reruns()).as("two removals (the first three letters, then the last), each on its second attempt")
        .isEqualTo(2 * 2);
  }

  @Test
  void a_message_without_a_named_invariant_is_classified_by_its_exception() {
    assertThat(ActionChains.invariantOf(new IllegalStateException("connection refused [K1#1>d1]")))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(ActionChains.invariantOf(new AssertionError("[one-in-flight] relay B was handed [K1#1>d1]")))
        .isEqualTo("one-in-flight");
  }
}
