package dev.outbox4j;

import java.time.Duration;
import java.util.Objects;

/**
 * When a failed delivery is tried again, and when the relay gives up.
 *
 * <p>Two shapes: {@linkplain #exponential() exponential} (the default: {@code base × multiplier^(n-1)}, capped, with
 * full jitter, so a fleet of relays retrying a recovering broker spreads out instead of arriving together) and
 * {@linkplain #linear() linear} ({@code step × n}, capped).
 *
 * <p>When the relay gives up on a retryable failure: once the entry has been failing for {@link #giveUpAfter()} (24 h
 * by default) counted from its first failed attempt of its own ({@link OutboxEntry#firstFailedAt()}), or after
 * {@link #maxAttempts()} failed attempts (unlimited by default), whichever comes first; it is then quarantined. Only
 * failures of the message itself count: while the transport as a whole is down the relay pauses and charges nothing,
 * so an outage, however long, quarantines nothing. A permanent failure quarantines at once, whatever the policy.
 *
 * <p>Immutable and thread-safe. Builders are not thread-safe.
 */
public final class RetryPolicy {
  /** Default first delay of the exponential policy: 1 second. */
  public static final Duration DEFAULT_BASE = Duration.ofSeconds(1);
  /** Default multiplier of the exponential policy: 2. */
  public static final double DEFAULT_MULTIPLIER = 2.0;
  /** Default cap on one delay: 5 minutes. */
  public static final Duration DEFAULT_CAP = Duration.ofMinutes(5);
  /** Default attempts before quarantine: unlimited ({@link Integer#MAX_VALUE}); the time budget decides. */
  public static final int DEFAULT_MAX_ATTEMPTS = Integer.MAX_VALUE;
  /** Default time budget of an entry's retryable failures: 24 hours from its first failed attempt. */
  public static final Duration DEFAULT_GIVE_UP_AFTER = Duration.ofHours(24);
  /** The longest cap a policy accepts: 365 days (a later retry time may not fit a store's timestamp). */
  public static final Duration MAX_CAP = Duration.ofDays(365);

  private final boolean exponential;
  private final Duration base;
  private final double multiplier;
  private final Duration cap;
  private final int maxAttempts;
  private final Duration giveUpAfter;
  private final boolean jitter;

  private RetryPolicy(Builder builder) {
    this.exponential = builder.exponential;
    this.base = builder.base;
    this.multiplier = builder.multiplier;
    this.cap = builder.cap;
    this.maxAttempts = builder.maxAttempts;
    this.giveUpAfter = builder.giveUpAfter;
    this.jitter = builder.jitter;
  }

  /**
   * @return the default policy: exponential from 1 s, ×2, capped at 5 min, full jitter; gives up after 24 h of
   *     failures of the message itself, with no attempt limit
   */
  public static RetryPolicy ofDefaults() {
    return exponential().build();
  }

  /** @return a builder for an exponential policy with full jitter, starting from the defaults */
  public static Builder exponential() {
    return new Builder(true);
  }

  /** @return a builder for a linear policy ({@code step × attempts}, capped, no jitter unless asked) */
  public static Builder linear() {
    return new Builder(false);
  }

  /** @return failed attempts after which an entry is quarantined; {@link Integer#MAX_VALUE} for no limit */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** @return how long an entry may keep failing, from its first failed attempt, before it is quarantined */
  public Duration giveUpAfter() {
    return giveUpAfter;
  }

  /** @return the longest single delay; the relay also caps delays a server requests ({@code Retry-After}) at it */
  public Duration cap() {
    return cap;
  }

  /**
   * @param failedAttempts failed attempts so far, counting the one that just failed
   * @return {@code true} when the attempt limit allows no further attempt (the time budget aside)
   */
  public boolean isExhausted(int failedAttempts) {
    return failedAttempts >= maxAttempts;
  }

  /**
   * Whether to give up on an entry after a failure of its own.
   *
   * @param failedAttempts failed attempts so far, counting the one that just failed
   * @param failingFor time since the entry's first failed attempt of its own ({@link OutboxEntry#firstFailedAt()});
   *     negative counts as zero
   * @return {@code true} when the attempt limit is reached, or when the time budget is spent and this is not the
   *     entry's first failure: the budget never ends an entry on its first failure of its own, so an entry that waited
   *     past its budget (in a backlog, an outage, while no relay ran) is still retried once, and a transport outage that
   *     begins in the middle of a pass is recognised by the relay before it costs such an entry its place
   */
  public boolean givesUp(int failedAttempts, Duration failingFor) {
    return isExhausted(failedAttempts) || (failedAttempts > 1 && failingFor.compareTo(giveUpAfter) >= 0);
  }

  /**
   * The delay before the next attempt.
   *
   * @param failedAttempts failed attempts so far, counting the one that just failed; at least 1
   * @param random a uniformly distributed number in {@code [0, 1)}, used only when jitter is on
   * @return the delay, between zero and the cap
   */
  public Duration delayAfter(int failedAttempts, double random) {
    int n = Math.max(1, failedAttempts);
    double nanos = exponential
        ? base.toNanos() * Math.pow(multiplier, n - 1)
        : (double) base.toNanos() * n;
    double capped = Math.min(nanos, cap.toNanos());
    if (jitter) {
      capped = capped * Math.min(Math.max(random, 0.0), 1.0);
    }
    return Duration.ofNanos((long) capped);
  }

  /**
   * The policy in the words a user configures it with, for reasons and logs; for example {@code linear, step 1s, cap
   * 5s, at most 3 attempts, give up after 24h} or {@code exponential, base 1s, multiplier 2, cap 5m, jitter, give up
   * after 24h}. Durations as {@link DurationFormat} writes them; the attempt limit only when there is one; jitter only
   * when it is on.
   *
   * @return the description
   */
  public String describe() {
    StringBuilder text = new StringBuilder(exponential ? "exponential, base " : "linear, step ")
        .append(DurationFormat.format(base));
    if (exponential) {
      text.append(", multiplier ").append(multiplier == Math.rint(multiplier) && multiplier < 1e15
          ? Long.toString((long) multiplier) : Double.toString(multiplier));
    }
    text.append(", cap ").append(DurationFormat.format(cap));
    if (jitter) {
      text.append(", jitter");
    }
    if (maxAttempts != Integer.MAX_VALUE) {
      text.append(", at most ").append(maxAttempts).append(maxAttempts == 1 ? " attempt" : " attempts");
    }
    return text.append(", give up after ").append(DurationFormat.format(giveUpAfter)).toString();
  }

  /** @return {@code RetryPolicy[}{@link #describe()}{@code ]} */
  @Override
  public String toString() {
    return "RetryPolicy[" + describe() + "]";
  }

  /** Configures a {@link RetryPolicy}. Not thread-safe. */
  public static final class Builder {
    private final boolean exponential;
    private Duration base;
    private double multiplier = DEFAULT_MULTIPLIER;
    private Duration cap = DEFAULT_CAP;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration giveUpAfter = DEFAULT_GIVE_UP_AFTER;
    private boolean jitter;

    private Builder(boolean exponential) {
      this.exponential = exponential;
      this.base = DEFAULT_BASE;
      this.jitter = exponential;
    }

    /**
     * @param delay the first delay (exponential) or the step added per attempt (linear); positive; default 1 s
     * @return this builder
     */
    public Builder withBase(Duration delay) {
      this.base = Objects.requireNonNull(delay, "base");
      return this;
    }

    /**
     * @param factor growth per attempt of the exponential policy; at least 1; default 2
     * @return this builder
     */
    public Builder withMultiplier(double factor) {
      this.multiplier = factor;
      return this;
    }

    /**
     * @param maximum the longest single delay, also applied to delays a server requests; positive, at most 365 days;
     *     default 5 min
     * @return this builder
     */
    public Builder withCap(Duration maximum) {
      this.cap = Objects.requireNonNull(maximum, "cap");
      return this;
    }

    /**
     * @param attempts failed attempts (of the message itself; an outage charges none) after which the entry is
     *     quarantined even inside its time budget; at least 1; default unlimited
     * @return this builder
     */
    public Builder withMaxAttempts(int attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    /**
     * @param budget how long an entry may keep failing for reasons of its own, counted from its first failed attempt
     *     ({@link OutboxEntry#firstFailedAt()}; a requeue starts the count again), before it is quarantined on its next
     *     failure; positive; default 24 h. Time an entry waited before its first failure (in an outage, or while no
     *     relay ran) is not held against it.
     * @return this builder
     */
    public Builder withGiveUpAfter(Duration budget) {
      this.giveUpAfter = Objects.requireNonNull(budget, "giveUpAfter");
      return this;
    }

    /**
     * @param enabled full jitter: each delay is drawn uniformly from zero to the computed delay; default on for
     *     exponential, off for linear
     * @return this builder
     */
    public Builder withJitter(boolean enabled) {
      this.jitter = enabled;
      return this;
    }

    /**
     * @return the policy
     * @throws IllegalArgumentException naming the option that is out of range
     */
    public RetryPolicy build() {
      if (base.isNegative() || base.isZero()) {
        throw new IllegalArgumentException("base must be positive, was " + base);
      }
      if (cap.isNegative() || cap.isZero() || cap.compareTo(MAX_CAP) > 0) {
        throw new IllegalArgumentException("cap must be positive and at most " + MAX_CAP + ", was " + cap);
      }
      if (giveUpAfter.isNegative() || giveUpAfter.isZero()) {
        throw new IllegalArgumentException("giveUpAfter must be positive, was " + giveUpAfter);
      }
      if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
        throw new IllegalArgumentException("multiplier must be at least 1, was " + multiplier);
      }
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      return new RetryPolicy(this);
    }
  }
}
