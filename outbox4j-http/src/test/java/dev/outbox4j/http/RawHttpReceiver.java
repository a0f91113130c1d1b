package dev.outbox4j.http;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A receiver on a plain socket for the connection tests, where {@link WebhookServer} (the JDK's server) cannot behave
 * as the receivers in question do: a thread per connection; either HTTP/1.1 keep-alive, or an HTTP/1.0 answer without
 * a {@code Connection} header (as Python's {@code http.server} answers by default) after which the connection is
 * closed — after {@code closeDelay}, unread, so a client that pooled it sends its next request into a connection about
 * to close. Each request may be held until {@link #release()}. Counts requests, connections and the most requests
 * being answered at once.
 */
final class RawHttpReceiver implements AutoCloseable {
  private final ServerSocket server;
  private final boolean keepAlive;
  private final Duration closeDelay;
  private final boolean hold;
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger mostRunning = new AtomicInteger();

  /**
   * @param keepAlive HTTP/1.1 keep-alive; otherwise an HTTP/1.0 answer, then the connection closed after closeDelay
   * @param hold whether each request waits for {@link #release()} before its answer
   */
  RawHttpReceiver(boolean keepAlive, Duration closeDelay, boolean hold) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.keepAlive = keepAlive;
    this.closeDelay = closeDelay;
    this.hold = hold;
    Thread acceptor = new Thread(this::accept, "raw-receiver-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/hook");
  }

  int requests() {
    return requests.get();
  }

  int connections() {
    return connections.get();
  }

  int mostRunning() {
    return mostRunning.get();
  }

  int running() {
    return running.get();
  }

  void release() {
    released.countDown();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.incrementAndGet();
        Thread thread = new Thread(() -> serve(socket), "raw-receiver-connection");
        thread.setDaemon(true);
        thread.start();
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      do {
        if (!readRequest(in)) {
          return;
        }
        requests.incrementAndGet();
        int now = running.incrementAndGet();
        mostRunning.accumulateAndGet(now, Math::max);
        try {
          if (hold) {
            released.await(20, TimeUnit.SECONDS);
          }
        } finally {
          running.decrementAndGet();
        }
        out.write((keepAlive ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" : "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } while (keepAlive);
      Thread.sleep(closeDelay.toMillis()); // the receiver's own pace, not a test wait
    } catch (IOException | InterruptedException e) {
      // the client went away, or the test ended
    }
  }

  private static boolean readRequest(InputStream in) throws IOException {
    long length = 0;
    boolean first = true;
    while (true) {
      String line = readLine(in);
      if (line == null) {
        return false;
      }
      if (line.isEmpty() && !first) {
        break;
      }
      first = false;
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
        length = Long.parseLong(line.substring(colon + 1).trim());
      }
    }
    in.skipNBytes(length);
    return true;
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
      }
      line.append((char) c);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    released.countDown();
    server.close();
  }
}
