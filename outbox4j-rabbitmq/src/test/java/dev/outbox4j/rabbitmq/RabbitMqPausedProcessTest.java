package dev.outbox4j.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A relay process stopped whole (a long GC pause, a frozen VM, {@code SIGSTOP}) while its transport still holds
 * publishes it has not written: once resumed past the transport's bound, none of them may reach the broker, since by
 * then another relay may have taken the entries over and sent their key's next messages. A real child JVM stops itself
 * at a confirm in the middle of a pipelined batch ({@link PausingPublisherMain}); this test resumes it after three
 * bounds and counts what arrives from then on.
 */
class RabbitMqPausedProcessTest {
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final int MESSAGES = 3_000;

  private final RabbitMqTestBroker broker = new RabbitMqTestBroker();
  private final AtomicLong arrivals = new AtomicLong();
  private final List<String> childOutput = new CopyOnWriteArrayList<>();
  private Process child;

  @AfterEach
  void cleanUp() {
    if (child != null) {
      signal("CONT", child.pid());
      child.destroyForcibly();
    }
    broker.close();
  }

  @Test
  void a_process_resumed_after_the_bound_sends_nothing_its_transport_still_held() throws Exception {
    broker.startConsuming((tag, delivery) -> arrivals.incrementAndGet());
    child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), PausingPublisherMain.class.getName(),
        Integer.toString(RabbitMqTestBroker.PORT), broker.destination(), Integer.toString(MESSAGES),
        Long.toString(BOUND.toMillis())).redirectErrorStream(true).start();
    Thread reader = new Thread(this::readChildOutput, "paused-publisher-output");
    reader.setDaemon(true);
    reader.start();

    await().atMost(Duration.ofSeconds(60)).until(() -> isStopped(child.pid()) || !child.isAlive());
    assertThat(child.isAlive()).as("the child stopped itself; its output: %s", childOutput).isTrue();
    // what the child's kernel had already taken lands while it is stopped; three bounds is ample for that
    Thread.sleep(3 * BOUND.toMillis());
    long beforeResume = arrivals.get();
    signal("CONT", child.pid());
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child ends once every delivery was answered").isTrue();
    Thread.sleep(BOUND.toMillis()); // anything it wrote after its resume has arrived by now

    String answered = childOutput.stream().filter(line -> line.startsWith("ANSWERED")).findFirst().orElseThrow();
    long unconfirmed = Long.parseLong(answered.replaceAll(".* other=(\\d+).*", "$1"));
    assertThat(unconfirmed).as("the pause caught publishes the transport still held: %s", answered).isPositive();
    assertThat(arrivals.get() - beforeResume)
        .as("messages that reached the broker after the resume, each one past its bound (of %d; %d unconfirmed)",
            MESSAGES, unconfirmed)
        .isZero();
  }

  private void readChildOutput() {
    try (BufferedReader lines = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        childOutput.add(line);
      }
    } catch (IOException e) {
      // the child went away
    }
  }

  /** @return whether the process is stopped by a signal ({@code T} in {@code /proc/<pid>/stat}) */
  private static boolean isStopped(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
  }

  private static void signal(String signal, long pid) {
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
    } catch (IOException e) {
      throw new IllegalStateException("cannot signal " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
