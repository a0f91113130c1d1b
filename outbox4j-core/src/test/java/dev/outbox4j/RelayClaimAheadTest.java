package dev.outbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.OutboxStore;
import dev.outbox4j.spi.Transport;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The next batch is claimed on a thread of its own while a full batch is sent and recorded (ClaimAhead). */
class RelayClaimAheadTest {
  private static final int BATCH = 100;
  private static final int KEYS = 400;

  @Test
  void the_next_claim_overlaps_the_recording_of_a_full_batch_and_keeps_every_key_in_order() throws Exception {
    InMemoryOutboxStore memory = InMemoryOutboxStore.create();
    Map<UUID, Integer> position = new HashMap<>();
    for (int i = 0; i < 2_000; i++) {
      Message message = Message.builder().withDestination("d").withOrderingKey("k" + (i % KEYS)).build();
      position.put(memory.enqueue(message).id(), i);
    }
    // The second claim (the first one claimed ahead) waits until the first batch's confirmations are being recorded,
    // and that recording waits until the second claim runs: only a claim made meanwhile, on another thread, lets both
    // go on. A relay that claims after recording waits out the 10 s and fails the test.
    CountDownLatch recording = new CountDownLatch(1);
    CountDownLatch claimingAhead = new CountDownLatch(1);
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger completions = new AtomicInteger();
    AtomicBoolean overlapped = new AtomicBoolean();
    OutboxStore store = proxy(memory, (name, call) -> {
      if (name.equals("combinesDeliveredAndClaim")) {
        return false; // as the JDBC store by default: a completion is a call of its own
      }
      if (name.equals("claim") && claims.incrementAndGet() == 2) {
        claimingAhead.countDown();
        recording.await(10, TimeUnit.SECONDS);
      } else if (name.equals("markDelivered") && completions.incrementAndGet() == 1) {
        recording.countDown();
        overlapped.set(claimingAhead.await(10, TimeUnit.SECONDS));
      }
      return call.run();
    });
    List<Message> sent = new CopyOnWriteArrayList<>();
    Transport confirmsAtOnce = message -> {
      sent.add(message);
      return CompletableFuture.completedFuture(DeliveryOutcome.delivered());
    };
    List<Thread> threads = new CopyOnWriteArrayList<>();
    Relay relay = Relay.builder(store, confirmsAtOnce).withBatchSize(BATCH).withThreadFactory(runnable -> {
      Thread thread = new Thread(runnable, "claim-ahead-test");
      thread.setDaemon(true);
      threads.add(thread);
      return thread;
    }).build();

    RelayResult result;
    try {
      result = relay.drain(1_000);
    } finally {
      relay.close();
    }

    assertThat(overlapped).as("a claim ran while a full batch's confirmations were recorded").isTrue();
    assertThat(result.delivered()).isEqualTo(2_000);
    assertThat(sent).hasSize(2_000);
    assertThat(sent.stream().map(Message::id).distinct().count()).isEqualTo(2_000);
    Map<String, Integer> last = new HashMap<>();
    for (Message message : sent) {
      String key = message.orderingKey().orElseThrow();
      int at = position.get(message.id());
      assertThat(last.getOrDefault(key, -1)).as("key %s in commit order", key).isLessThan(at);
      last.put(key, at);
    }
    assertThat(threads).as("the claim ahead's thread").isNotEmpty();
    for (Thread thread : threads) {
      thread.join(Duration.ofSeconds(10).toMillis()); // drain ends it: nothing runs on after the call returns
      assertThat(thread.isAlive()).as("%s still alive after drain", thread).isFalse();
    }
  }

  private interface Call {
    Object run() throws Exception;
  }

  private interface Around {
    Object invoke(String method, Call call) throws Exception;
  }

  private static OutboxStore proxy(OutboxStore target, Around around) {
    return (OutboxStore) Proxy.newProxyInstance(OutboxStore.class.getClassLoader(), new Class<?>[] {OutboxStore.class},
        (self, method, args) -> around.invoke(method.getName(), () -> {
          try {
            return method.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
          }
        }));
  }
}
