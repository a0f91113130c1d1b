package dev.outbox4j.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** Waits for a server process that a test started to listen on its port. */
public final class ListeningPort {
  private ListeningPort() {}

  /**
   * Waits until {@code port} on 127.0.0.1 accepts a connection, while {@code process} lives.
   *
   * @param process the server's process; when it ends first, the wait fails at once
   * @param port the port it listens on
   * @param limit how long to wait
   * @param whereToLook what the failure names for the server's output (its log file)
   * @throws IllegalStateException when the process ended or the limit passed first; the process is then destroyed
   */
  public static void await(Process process, int port, Duration limit, String whereToLook) {
    try {
      Awaitility.await("a listener on port " + port).atMost(limit).pollInterval(Duration.ofMillis(50))
          .until(() -> {
            if (!process.isAlive()) {
              throw new IllegalStateException("the server process ended with " + process.exitValue()
                  + " before it listened on " + port + "; see " + whereToLook);
            }
            return accepts(port);
          });
    } catch (ConditionTimeoutException e) {
      process.destroyForcibly();
      throw new IllegalStateException("nothing listened on " + port + " within " + limit + "; see " + whereToLook, e);
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException notYet) {
      return false;
    }
  }
}
