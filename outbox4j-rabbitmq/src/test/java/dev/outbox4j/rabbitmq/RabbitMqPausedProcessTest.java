package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.testkit.PausedProcess;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A relay process stopped whole (a long GC pause, a frozen VM, {@code SIGSTOP}) while its transport still holds
 * publishes it has not written: once resumed past the transport's bound, none of them may reach the broker, since by
 * then another relay may have taken the entries over and sent their key's next messages. A real child JVM stops itself
 * at a confirm in the middle of a pipelined batch ({@link PausingPublisherMain}); this test resumes it after three
 * bounds and counts what arrives from then on: at most the one publish whose write was under way when the process
 * stopped (no client can take back a system call it is inside; the publisher writes one publish at a time). Without
 * the transport's checks, dozens to hundreds arrive.
 */
class RabbitMqPausedProcessTest {
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final int MESSAGES = 3_000;
  /** Fresh children tried until one's pause catches publishes in progress (a loaded machine can miss). */
  private static final int ATTEMPTS = 3;

  private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
  private final AtomicLong arrivals = new AtomicLong();

  @AfterEach
  void cleanUp() {
    broker.close();
  }

  @Test
  void a_process_resumed_after_the_bound_sends_nothing_its_transport_still_held() throws Exception {
    broker.startConsuming((tag, delivery) -> arrivals.incrementAndGet());
    for (int attempt = 1; ; attempt++) {
      try (PausedProcess child = PausedProcess.start(PausingPublisherMain.class,
          Integer.toString(RabbitMqTestBroker.PORT), broker.destination(), Integer.toString(MESSAGES),
          Long.toString(BOUND.toMillis()))) {
        if (!child.awaitStopped(Duration.ofSeconds(60))) {
          PausedProcess.missed(attempt, ATTEMPTS, "every confirmation arrived before the batch was handed over");
          continue;
        }
        // what the child's kernel had already taken lands while it is stopped; three bounds is ample for that
        Thread.sleep(3 * BOUND.toMillis());
        long beforeResume = arrivals.get();
        child.resume(Duration.ofSeconds(60));
        Thread.sleep(BOUND.toMillis()); // anything it wrote after its resume has arrived by now
        if (child.unconfirmed() == 0) {
          PausedProcess.missed(attempt, ATTEMPTS, "the pause caught no publish the transport still held");
          continue;
        }

        assertThat(arrivals.get() - beforeResume)
            .as("messages that reached the broker after the resume, each one past its bound (of %d; %d unconfirmed)",
                MESSAGES, child.unconfirmed())
            .isLessThanOrEqualTo(1);
        return;
      }
    }
  }
}
