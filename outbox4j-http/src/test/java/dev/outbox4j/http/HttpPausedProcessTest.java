package dev.outbox4j.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.testkit.PausedProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A relay process stopped whole (a long GC pause, a frozen VM, {@code SIGSTOP}) while its HTTP client still holds
 * requests it has not sent: once resumed past the transport's bound, none of them may reach the receiver whole, since
 * by then another relay may have taken the entries over and sent their key's next webhooks. A real child JVM stops
 * itself at a 2xx in the middle of a batch ({@link PausingSenderMain}); this test resumes it after three bounds and
 * counts the requests the receiver reads whole from then on: at most the one whose body the client was writing when the
 * process stopped (its one selector thread writes one at a time). Without the bounded body, dozens arrive.
 */
class HttpPausedProcessTest {
  private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(500);
  private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(500);
  private static final Duration BOUND = CONNECT_TIMEOUT.plus(REQUEST_TIMEOUT);
  private static final int MESSAGES = 400;

  private final WebhookServer receiver = new WebhookServer();

  /** Fresh children tried until one's pause catches requests in progress (a loaded machine can miss). */
  private static final int ATTEMPTS = 3;

  @AfterEach
  void cleanUp() {
    receiver.close();
  }

  @Test
  void a_process_resumed_after_the_bound_sends_no_request_its_client_still_held() throws Exception {
    for (int attempt = 1; ; attempt++) {
      try (PausedProcess child = PausedProcess.start(PausingSenderMain.class, receiver.uri("/ok").toString(),
          Integer.toString(MESSAGES), Long.toString(CONNECT_TIMEOUT.toMillis()),
          Long.toString(REQUEST_TIMEOUT.toMillis()))) {
        if (!child.awaitStopped(Duration.ofSeconds(60))) {
          PausedProcess.missed(attempt, ATTEMPTS, "every answer arrived before the batch was handed over");
          continue;
        }
        // what the child's kernel had already taken arrives while it is stopped; three bounds is ample for that
        Thread.sleep(3 * BOUND.toMillis());
        int beforeResume = receiver.received().size();
        child.resume(Duration.ofSeconds(60));
        Thread.sleep(BOUND.toMillis()); // anything it sent after its resume has arrived by now
        if (child.unconfirmed() == 0) {
          PausedProcess.missed(attempt, ATTEMPTS, "the pause caught no request the client still held");
          continue;
        }

        assertThat(receiver.received().size() - beforeResume)
            .as("webhooks read whole after the resume, each one past its bound (of %d; %d not answered 2xx)",
                MESSAGES, child.unconfirmed())
            .isLessThanOrEqualTo(1);
        return;
      }
    }
  }
}
