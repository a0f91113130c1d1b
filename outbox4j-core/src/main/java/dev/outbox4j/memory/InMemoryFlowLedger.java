package dev.outbox4j.memory;

import dev.outbox4j.flow.FlowLedger;
import dev.outbox4j.flow.FlowState;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.flow.FlowStateFormat;
import dev.outbox4j.flow.LeaseObservation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A process-local reference {@link FlowLedger}. It stores what the codec writes, bytes and all, exactly as a database
 * ledger does, so it enforces the same size budget and reports the same unreadable states; it passes the same
 * contract suite.
 *
 * <p>Thread-safe: every operation runs under one lock, which makes each one atomic.
 *
 * @param <B> the body type
 */
public final class InMemoryFlowLedger<B> implements FlowLedger<B> {

  /** One stored flow; guarded by the ledger's lock. */
  private static final class Row {
    byte[] content;
    long revision;
    Instant expiresAt;
    @Nullable String leaseOwner;
    @Nullable Instant leaseUntil;

    Row(byte[] content, long revision, Instant expiresAt) {
      this.content = content;
      this.revision = revision;
      this.expiresAt = expiresAt;
    }

    boolean isLive(Instant now) {
      return expiresAt.isAfter(now);
    }

    boolean isLeasedAt(Instant now) {
      return leaseOwner != null && leaseUntil != null && leaseUntil.isAfter(now);
    }
  }

  private final Object lock = new Object();
  private final Clock clock;
  private final FlowStateFormat<B> format;
  private final Map<String, Row> rows = new HashMap<>();

  private InMemoryFlowLedger(Builder<B> builder) {
    this.clock = builder.clock;
    this.format = FlowStateFormat.of(builder.codec, builder.maxStateBytes);
  }

  /**
   * @param codec how states are serialized
   * @param <B> the body type
   * @return a builder with the defaults: system UTC clock, {@value FlowLedger#DEFAULT_MAX_STATE_BYTES} bytes budget
   */
  public static <B> Builder<B> builder(FlowStateCodec<B> codec) {
    return new Builder<>(codec);
  }

  @Override
  public void validateCreate(String flowId, FlowState<B> state, Duration ttl) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    format.encode(flowId, state);
  }

  @Override
  public boolean tryCreate(String flowId, FlowState<B> state, Duration ttl) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    byte[] content = format.encode(flowId, state);
    synchronized (lock) {
      Instant now = clock.instant();
      Row row = rows.get(flowId);
      if (row != null && row.isLive(now)) {
        return false;
      }
      rows.put(flowId, new Row(content, state.revision(), now.plus(ttl)));
      return true;
    }
  }

  @Override
  public Optional<FlowState<B>> load(String flowId) {
    FlowLedger.checkFlowId(flowId);
    byte[] content;
    long revision;
    synchronized (lock) {
      Row row = rows.get(flowId);
      if (row == null || !row.isLive(clock.instant())) {
        return Optional.empty();
      }
      content = row.content;
      revision = row.revision;
    }
    return Optional.of(format.decode(flowId, revision, content));
  }

  @Override
  public boolean tryUpdate(
      String flowId, FlowState<B> state, long expectedRevision, Duration ttl, @Nullable String leaseId) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    FlowLedger.checkNextRevision(state, expectedRevision);
    if (leaseId != null) {
      FlowLedger.checkLeaseId(leaseId);
    }
    byte[] content = format.encode(flowId, state);
    synchronized (lock) {
      Instant now = clock.instant();
      Row row = rows.get(flowId);
      if (row == null || !row.isLive(now) || row.revision != expectedRevision) {
        return false;
      }
      if (leaseId != null && !(row.isLeasedAt(now) && leaseId.equals(row.leaseOwner))) {
        return false;
      }
      row.content = content;
      row.revision = state.revision();
      row.expiresAt = now.plus(ttl);
      return true;
    }
  }

  @Override
  public boolean tryAcquireLease(String flowId, String leaseId, Duration leaseDuration) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkLeaseId(leaseId);
    FlowLedger.checkPositive("leaseDuration", leaseDuration);
    synchronized (lock) {
      Instant now = clock.instant();
      Row row = rows.get(flowId);
      if (row == null || !row.isLive(now) || row.isLeasedAt(now)) {
        return false;
      }
      row.leaseOwner = leaseId;
      row.leaseUntil = now.plus(leaseDuration);
      return true;
    }
  }

  @Override
  public boolean tryRenewLease(String flowId, String leaseId, Duration leaseDuration) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkLeaseId(leaseId);
    FlowLedger.checkPositive("leaseDuration", leaseDuration);
    synchronized (lock) {
      Instant now = clock.instant();
      Row row = rows.get(flowId);
      if (row == null || !row.isLive(now) || !row.isLeasedAt(now) || !leaseId.equals(row.leaseOwner)) {
        return false;
      }
      row.leaseUntil = now.plus(leaseDuration);
      return true;
    }
  }

  @Override
  public boolean releaseLease(String flowId, String leaseId) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkLeaseId(leaseId);
    synchronized (lock) {
      Row row = rows.get(flowId);
      if (row == null || !row.isLive(clock.instant()) || !leaseId.equals(row.leaseOwner)) {
        return false;
      }
      row.leaseOwner = null;
      row.leaseUntil = null;
      return true;
    }
  }

  @Override
  public LeaseObservation observeLease(String flowId) {
    FlowLedger.checkFlowId(flowId);
    synchronized (lock) {
      Row row = rows.get(flowId);
      if (row == null || !row.isLive(clock.instant()) || row.leaseOwner == null || row.leaseUntil == null) {
        return LeaseObservation.unheld();
      }
      return LeaseObservation.held(row.leaseOwner, row.leaseUntil);
    }
  }

  @Override
  public boolean tryDelete(String flowId) {
    FlowLedger.checkFlowId(flowId);
    synchronized (lock) {
      Row row = rows.remove(flowId);
      return row != null && row.isLive(clock.instant());
    }
  }

  @Override
  public int purgeExpired(int limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
    synchronized (lock) {
      Instant now = clock.instant();
      int purged = 0;
      Iterator<Row> iterator = rows.values().iterator();
      while (purged < limit && iterator.hasNext()) {
        if (!iterator.next().isLive(now)) {
          iterator.remove();
          purged++;
        }
      }
      return purged;
    }
  }

  /** @return how many flows are stored, expired ones not yet purged included */
  public int storedCount() {
    synchronized (lock) {
      return rows.size();
    }
  }

  /**
   * Stores raw content and a revision under a flow id, bypassing the codec and every check, with no lease. For
   * contract tests that must plant content a correct writer never produces (malformed bytes, a revision that
   * disagrees with the content); never call it in production code.
   *
   * @param flowId the key
   * @param storedRevision the revision stored beside the content
   * @param content the raw bytes
   * @param ttl the time to live from now
   */
  public void plantRawForTesting(String flowId, long storedRevision, byte[] content, Duration ttl) {
    FlowLedger.checkFlowId(flowId);
    FlowLedger.checkPositive("ttl", ttl);
    synchronized (lock) {
      rows.put(flowId, new Row(content.clone(), storedRevision, clock.instant().plus(ttl)));
    }
  }

  /**
   * Configures an {@link InMemoryFlowLedger}. Not thread-safe; {@link #build()} copies into an immutable ledger.
   *
   * @param <B> the body type
   */
  public static final class Builder<B> {
    private final FlowStateCodec<B> codec;
    private Clock clock = Clock.system(ZoneOffset.UTC);
    private int maxStateBytes = FlowLedger.DEFAULT_MAX_STATE_BYTES;

    private Builder(FlowStateCodec<B> codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
    }

    /**
     * @param clock the source of "now" for TTLs and leases; default the system UTC clock
     * @return this builder
     */
    public Builder<B> withClock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param maxStateBytes the budget for one serialized state, in bytes; default
     *     {@value FlowLedger#DEFAULT_MAX_STATE_BYTES}
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder<B> withMaxStateBytes(int maxStateBytes) {
      if (maxStateBytes <= 0) {
        throw new IllegalArgumentException("maxStateBytes must be positive, was " + maxStateBytes);
      }
      this.maxStateBytes = maxStateBytes;
      return this;
    }

    /** @return the ledger */
    public InMemoryFlowLedger<B> build() {
      return new InMemoryFlowLedger<>(this);
    }
  }
}
