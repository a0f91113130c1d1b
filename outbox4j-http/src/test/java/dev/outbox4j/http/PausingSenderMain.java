package dev.outbox4j.http;

import dev.outbox4j.Message;
import dev.outbox4j.testkit.PausedProcess;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The child process of {@link HttpPausedProcessTest} ({@link PausedProcess}): a batch of webhooks, one key each,
 * stopped at a 2xx while requests are still connecting or queued in the client.
 *
 * <p>Arguments: endpoint URI, message count, connect timeout and request timeout in milliseconds.
 */
final class PausingSenderMain {
  private PausingSenderMain() {}

  public static void main(String[] args) throws Exception {
    try (HttpTransport transport = HttpTransport.builder().withEndpoint("hooks", URI.create(args[0]))
        .withConnectTimeout(Duration.ofMillis(Long.parseLong(args[2])))
        .withRequestTimeout(Duration.ofMillis(Long.parseLong(args[3]))).build()) {
      Message warmUp = Message.builder().withDestination("hooks").withPayload("warm-up").build();
      PausedProcess.warmUp(transport, warmUp);
      List<Message> batch = new ArrayList<>();
      for (int i = 0; i < Integer.parseInt(args[1]); i++) {
        batch.add(Message.builder().withDestination("hooks").withOrderingKey("key-" + i)
            .withContentType("application/json").withPayload("{\"n\":\"" + "x".repeat(100) + "\"}").build());
      }
      PausedProcess.deliverAndStopAtAConfirmation(transport, batch);
    }
  }
}
