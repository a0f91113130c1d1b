package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.EntryNotFoundException;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.EntryTransitionException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageLimits;
import dev.outbox4j.MessageRejectedException;
import dev.outbox4j.OptimisticConflictException;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.OutboxException;
import dev.outbox4j.QuarantineKind;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.DestinationStats;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.OperatorPause;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.QuarantineGroup;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.Retention;
import dev.outbox4j.spi.WaitingSelector;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every store contract test starts from: a new, empty store on a settable clock, and the helpers the tests share.
 * The contract itself is {@link OutboxStoreContract}; subclass that.
 */
public abstract class OutboxStoreFixture {
  /** A lease long enough never to expire by itself during a test. */
  protected static final Duration LEASE = Duration.ofSeconds(30);

  /** The test's clock: the store's clock, and the source of every {@code now}. */
  protected SettableClock clock;

  /**
   * @param clock the clock the store must use for creation and entry-face timestamps
   * @param retention what the store must do with delivered entries
   * @return a new, EMPTY store (each call: no entries left from earlier tests)
   */
  protected abstract OutboxStore newStore(Clock clock, Retention retention);

  /**
   * Whether claiming an entry changes its version, as a claim that writes a lease into the row does. A store whose
   * claims are held outside the row (PostgreSQL's leased batches, a row per claimed batch) answers {@code false}: there
   * an entry-face mutation of a claimed entry read before the claim succeeds, and cancels the claim as any entry-face
   * mutation does.
   *
   * @return {@code true} unless overridden
   */
  protected boolean claimChangesTheEntry() {
    return true;
  }

  /**
   * Writes one row the way another application would, with the plain-SQL INSERT of docs/schema.md ("Writing an outbox
   * row from another application"), every column bound as given and nothing checked, committed before it returns.
   * The tests of rows the store cannot read (SPEC §3a) use it.
   *
   * @param row the columns to write
   * @return {@code false}, having written nothing, when the store cannot hold a row it cannot read because it keeps
   *     typed values only (the in-memory store): the tests of unreadable rows are then skipped
   */
  protected abstract boolean insertWithPlainSql(PlainSqlRow row);

  /** The store of the current test (delete on delivery). */
  protected OutboxStore store;

  @BeforeEach
  final void createStore() {
    clock = SettableClock.atFixedStart();
    store = newStore(clock, Retention.deleteOnDelivery());
  }

  /** @return the store of the current test (delete on delivery) */
  protected final OutboxStore store() {
    return store;
  }

  /** @return the test clock's time */
  protected final Instant now() {
    return clock.instant();
  }

  /** @return a message to {@code destination}, keyed by {@code key} (also its payload) */
  protected static Message message(String destination, String key) {
    return Message.builder().withDestination(destination).withOrderingKey(key).withPayload(key).build();
  }

  /** @return an unkeyed message to {@code orders} */
  protected static Message unkeyed(String payload) {
    return Message.builder().withDestination("orders").withPayload(payload).build();
  }

  /** @return a permanent-failure reason */
  protected static QuarantineReason poison(String text) {
    return QuarantineReason.permanentFailure(text);
  }

  /** @return the claims' entry ids, in order */
  protected static List<UUID> ids(List<Claim> claims) {
    List<UUID> ids = new ArrayList<>();
    claims.forEach(c -> ids.add(c.id()));
    return ids;
  }

}
