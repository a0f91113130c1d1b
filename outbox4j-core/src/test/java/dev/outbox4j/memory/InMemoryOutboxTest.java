package dev.outbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox4j.DuplicateMessageException;
import dev.outbox4j.Message;
import dev.outbox4j.MessageRejectedException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InMemoryOutboxTest {
  private final InMemoryOutboxStore store = InMemoryOutboxStore.create();
  private final InMemoryOutbox outbox = store.outbox();

  private static Message message(String key) {
    return Message.builder().withDestination("d").withOrderingKey(key).withPayload(key).build();
  }

  @Test
  void messages_appear_only_when_the_transaction_commits() {
    InMemoryTransaction tx = store.begin();
    outbox.write(tx, message("a"));

    assertThat(store.pendingCount()).isZero();
    tx.commit();
    assertThat(store.pendingCount()).isEqualTo(1);
  }

  @Test
  void a_rolled_back_transactions_messages_never_exist() {
    try (InMemoryTransaction tx = store.begin()) {
      outbox.writeAll(tx, List.of(message("a"), message("b")));
      tx.rollback();
    }

    assertThat(store.pendingCount()).isZero();
    assertThat(store.claim(10, Instant.now(), Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void a_refused_message_leaves_the_transaction_usable() {
    InMemoryOutboxStore small = InMemoryOutboxStore.builder()
        .withLimits(dev.outbox4j.MessageLimits.defaults().withMaxPayloadBytes(4)).build();
    InMemoryTransaction tx = small.begin();

    assertThatThrownBy(() -> small.outbox().writeAll(tx,
            List.of(message("ok"), Message.builder().withDestination("d").withPayload("12345").build())))
        .isInstanceOf(MessageRejectedException.class);
    small.outbox().write(tx, message("ok"));
    tx.commit();

    assertThat(small.pendingCount()).isEqualTo(1);
  }

  @Test
  void writing_an_existing_id_is_a_duplicate() {
    Message message = message("a");
    InMemoryTransaction first = store.begin();
    outbox.write(first, message);
    first.commit();

    assertThatThrownBy(() -> outbox.write(store.begin(), message)).isInstanceOf(DuplicateMessageException.class);
  }

  @Test
  void commit_order_is_delivery_order_within_a_key() {
    Message a = message("k");
    Message b = message("k");
    InMemoryTransaction txA = store.begin();
    InMemoryTransaction txB = store.begin();
    outbox.write(txA, a); // A writes first ...
    outbox.write(txB, b);
    txB.commit(); // ... but B commits first
    txA.commit();

    Instant now = Instant.now();
    var first = store.claim(10, now, Duration.ofSeconds(5));
    assertThat(first).extracting(c -> c.id()).containsExactly(b.id());
    store.markDelivered(first, now);
    assertThat(store.claim(10, now, Duration.ofSeconds(5))).extracting(c -> c.id()).containsExactly(a.id());
  }

  @Test
  void commit_listeners_run_after_each_commit() {
    AtomicInteger wakeUps = new AtomicInteger();
    store.addCommitListener(wakeUps::incrementAndGet);
    InMemoryTransaction tx = store.begin();
    outbox.write(tx, message("a"));
    tx.commit();

    assertThat(wakeUps.get()).isEqualTo(1);
  }

  @Test
  void introspection_reports_attempts_and_last_error() {
    InMemoryTransaction tx = store.begin();
    Message message = message("a");
    outbox.write(tx, message);
    tx.commit();
    Instant now = Instant.now();
    store.markFailed(store.claim(1, now, Duration.ofSeconds(5)).get(0), "boom", now);

    assertThat(store.attemptsOf(message.id())).isEqualTo(1);
    assertThat(store.lastErrorOf(message.id())).contains("boom");
  }
}
