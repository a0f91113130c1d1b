package dev.outbox4j.examples;

import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.memory.InMemoryOutbox;
import dev.outbox4j.memory.InMemoryOutboxStore;
import dev.outbox4j.memory.InMemoryTransaction;
import dev.outbox4j.memory.InProcessTransport;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.QuarantineQuery;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A tour of outbox4j in one process: write messages inside transactions (one rolls back), run a relay that delivers
 * them in per-key order, and watch a poison message land in quarantine instead of blocking anyone else.
 */
public final class QuickStart {
  private QuickStart() {}

  public static void main(String[] args) throws InterruptedException {
    InMemoryOutboxStore store = InMemoryOutboxStore.create();
    InMemoryOutbox outbox = store.outbox();
    int expected = 9;
    CountDownLatch done = new CountDownLatch(expected + 1);

    InProcessTransport transport = InProcessTransport.of(message -> {
      String body = new String(message.payload(), StandardCharsets.UTF_8);
      if (body.contains("poison")) {
        return DeliveryOutcome.permanent("consumer rejects this payload");
      }
      System.out.printf("delivered  key=%-9s %s%n", message.orderingKey().orElse("-"), body);
      return DeliveryOutcome.delivered();
    });
    Relay relay = Relay.builder(store, transport)
        .withRetryPolicy(RetryPolicy.exponential().withBase(Duration.ofMillis(50)).withMaxAttempts(3).build())
        .onEvent(new RelayListener() {
          @Override
          public void onDelivered(OutboxEntry entry, Duration deliveryTime) {
            done.countDown();
          }

          @Override
          public void onQuarantined(OutboxEntry entry, String reason) {
            System.out.printf("quarantined %s: %s%n", entry.id(), reason);
            done.countDown();
          }
        })
        .build();
    store.addCommitListener(relay::wakeUp);
    relay.start();

    for (int order = 1; order <= 3; order++) {
      try (InMemoryTransaction tx = store.begin()) {
        // ... the business change would be written here, in the same transaction ...
        for (String step : new String[] {"created", "paid", "shipped"}) {
          outbox.write(tx, Message.builder()
              .withDestination("orders")
              .withOrderingKey("order-" + order)
              .withContentType("application/json")
              .withPayload("{\"order\":" + order + ",\"event\":\"" + step + "\"}")
              .build());
        }
        tx.commit();
      }
    }
    try (InMemoryTransaction tx = store.begin()) {
      outbox.write(tx, Message.builder().withDestination("orders").withPayload("{\"never\":\"sent\"}").build());
      tx.rollback();
      System.out.println("rolled back a transaction: its message never existed");
    }
    try (InMemoryTransaction tx = store.begin()) {
      outbox.write(tx, Message.builder().withDestination("orders").withOrderingKey("order-9")
          .withPayload("{\"poison\":true}").build());
      tx.commit();
    }

    boolean finished = done.await(30, TimeUnit.SECONDS);
    relay.close();
    System.out.printf("%s; pending=%d, quarantined=%d%n", finished ? "done" : "timed out",
        store.pendingCount(), store.quarantined(QuarantineQuery.first(100)).size());
  }
}
