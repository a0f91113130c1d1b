package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.spi.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A transport's sends under a pause of the whole process (a long GC pause, a frozen VM): a child JVM hands its
 * transport a batch and, at the first confirmation that arrives once the whole batch was handed over, stops itself
 * with {@code kill -STOP} (every thread at once) while the transport still holds sends it has not made. The test
 * resumes it past the transport's bound and counts what reaches the broker or receiver from then on: each of those is
 * a copy past its bound, which another relay may already have overtaken (SPEC: a late copy never overtakes).
 *
 * <p>The child's {@code main} builds its transport and messages and calls {@link #deliverAndStopAtAConfirmation};
 * the test starts it with {@link #start} and drives it with {@link #awaitStopped}, {@link #resume} and
 * {@link #unconfirmed}. Linux only ({@code /proc}, {@code kill}). Not thread-safe; one test thread drives it.
 */
public final class PausedProcess implements AutoCloseable {
  private static final String ANSWERED = "ANSWERED";
  private final Process child;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private PausedProcess(Process child) {
    this.child = child;
    this.reader = new Thread(this::readOutput, "paused-process-output-" + child.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a child JVM on this JVM's class path.
   *
   * @param main the child's main class, which calls {@link #deliverAndStopAtAConfirmation}
   * @param arguments its arguments
   * @return the running child
   */
  public static PausedProcess start(Class<?> main, String... arguments) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(arguments));
    try {
      return new PausedProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + main.getName(), e);
    }
  }

  /**
   * In the child: delivers {@code message} until the transport confirms it (its connection is then open and warm), up
   * to a minute. A first send can miss a short bound while a loaded machine starts the child's threads; that is not
   * what these tests are about, so it is tried again rather than failing the child.
   *
   * @param transport the transport
   * @param message a message for the destination the batch goes to
   * @throws IllegalStateException when no attempt was confirmed within a minute, with the last answer
   */
  public static void warmUp(Transport transport, Message message) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    DeliveryOutcome answer;
    do {
      answer = transport.deliver(message).toCompletableFuture().get(1, TimeUnit.MINUTES);
    } while (!(answer instanceof DeliveryOutcome.Delivered) && System.nanoTime() < deadline);
    if (!(answer instanceof DeliveryOutcome.Delivered)) {
      throw new IllegalStateException("warm-up not delivered within a minute: " + answer);
    }
  }

  /**
   * In the child: hands {@code transport} every message, stops this process at the first confirmation that arrives
   * after the last was handed over (on the thread that completes it, as a relay frozen between a confirmation and its
   * record), and once resumed and every delivery answered prints how many were not confirmed.
   *
   * @param transport the transport, already connected (send one message first)
   * @param messages the batch
   */
  public static void deliverAndStopAtAConfirmation(Transport transport, List<Message> messages) throws Exception {
    AtomicBoolean handedOver = new AtomicBoolean();
    AtomicBoolean stopped = new AtomicBoolean();
    List<CompletableFuture<DeliveryOutcome>> outcomes = new ArrayList<>(messages.size());
    for (Message message : messages) {
      CompletableFuture<DeliveryOutcome> outcome = transport.deliver(message).toCompletableFuture();
      outcome.thenAccept(answer -> {
        if (answer instanceof DeliveryOutcome.Delivered && handedOver.get() && stopped.compareAndSet(false, true)) {
          signal("STOP", ProcessHandle.current().pid());
        }
      });
      outcomes.add(outcome);
    }
    handedOver.set(true);
    CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    long delivered = outcomes.stream().filter(o -> o.join() instanceof DeliveryOutcome.Delivered).count();
    System.out.println(ANSWERED + " delivered=" + delivered + " unconfirmed=" + (messages.size() - delivered)
        + " stopped=" + stopped.get());
  }

  /**
   * Waits until the child stopped itself.
   *
   * @return {@code true} when it stopped; {@code false} when it ended without stopping because every confirmation
   *     arrived before the last message was handed over (a loaded machine can do that: the scenario's precondition was
   *     not reached, see {@link #missed})
   * @throws AssertionError with its output, if it ended otherwise (it failed)
   */
  public boolean awaitStopped(Duration timeout) {
    await().atMost(timeout).until(() -> !child.isAlive() || isStopped());
    if (child.isAlive()) {
      return true;
    }
    try {
      child.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    try {
      reader.join(Duration.ofSeconds(30).toMillis()); // the child ended: its output ends too
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    assertThat(output).as("the child ended (exit code %d) without stopping itself; its output", child.exitValue())
        .anyMatch(line -> line.startsWith(ANSWERED) && line.endsWith("stopped=false"));
    return false;
  }

  /**
   * A trial that did not reach its precondition (the child never stopped, or its pause caught no send the transport
   * still held): nothing was tested. Returns to let the caller try again while attempts remain; after the last one
   * the test is aborted (reported as skipped, with the reason) rather than failed or passed.
   *
   * @param attempt this attempt, from 1
   * @param attempts how many are allowed
   * @param why what was missed
   */
  public static void missed(int attempt, int attempts, String why) {
    System.out.println("paused-process trial " + attempt + " of " + attempts + " missed its precondition: " + why);
    if (attempt >= attempts) {
      throw new org.opentest4j.TestAbortedException(attempts + " trials in a row missed their precondition (" + why
          + "): the machine was too loaded for the pause to catch a send in progress; nothing was tested");
    }
  }

  /** Resumes the child and waits until it has answered every delivery and ended. */
  public void resume(Duration timeout) throws InterruptedException {
    signal("CONT", child.pid());
    assertThat(child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
        .as("the child ends once every delivery was answered; its output: %s", output).isTrue();
  }

  /** @return how many of the batch the child's transport did not confirm (after {@link #resume}) */
  public long unconfirmed() {
    String answered = output.stream().filter(line -> line.startsWith(ANSWERED)).findFirst()
        .orElseThrow(() -> new AssertionError("the child answered nothing: " + output));
    return Long.parseLong(answered.replaceAll(".* unconfirmed=(\\d+).*", "$1"));
  }

  /** Resumes the child if it is stopped and ends it. */
  @Override
  public void close() {
    signal("CONT", child.pid());
    child.destroyForcibly();
  }

  private boolean isStopped() throws IOException {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(child.pid()), "stat"));
    } catch (java.nio.file.NoSuchFileException e) {
      return false; // it ended between the liveness check and this read
    }
    return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
  }

  private void readOutput() {
    try (BufferedReader lines = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        output.add(line);
      }
    } catch (IOException e) {
      // the child went away
    }
  }

  private static void signal(String signal, long pid) {
    try {
      new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot send SIG" + signal + " to " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
