package dev.outbox4j.testkit;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A webhook receiver on a plain socket on 127.0.0.1, built as Python's {@code http.server.ThreadingHTTPServer} is (a
 * thread per connection, a listen backlog of the caller's choice; Python's is 5), answering every request {@code 200}
 * with an empty body. Either it keeps each connection open for the next request (HTTP/1.1), or it answers in HTTP/1.0
 * without a {@code Connection: close} header, as Python does by default, and closes the connection {@code closeDelay}
 * later without reading more: a client that pooled the connection sends its next request into one about to close.
 * The JDK's own server cannot answer that way, hence the socket.
 *
 * <p>Each request may be held until {@link #release()}. Counts requests, connections, the most requests being answered
 * at once, and the distinct values of one header (the message id). For the HTTP transport's tests and the benchmark's
 * webhook rows. Thread-safe.
 */
public final class PlainHttpReceiver implements AutoCloseable {
  private final ServerSocket server;
  private final boolean keepAlive;
  private final Duration closeDelay;
  private final boolean hold;
  private final String idHeader;
  private final CountDownLatch released = new CountDownLatch(1);
  private final Set<String> ids = ConcurrentHashMap.newKeySet();
  private final AtomicInteger requests = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger mostRunning = new AtomicInteger();

  /**
   * @param keepAlive HTTP/1.1 keep-alive; otherwise an HTTP/1.0 answer, then the connection closed after closeDelay
   * @param backlog the listen backlog (connections waiting to be accepted)
   * @param closeDelay how long a connection stays open after an HTTP/1.0 answer
   * @param hold whether each request waits for {@link #release()} before its answer
   * @param idHeader the header whose distinct values {@link #distinct()} counts
   */
  public PlainHttpReceiver(boolean keepAlive, int backlog, Duration closeDelay, boolean hold, String idHeader) {
    try {
      this.server = new ServerSocket(0, backlog, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on 127.0.0.1", e);
    }
    this.keepAlive = keepAlive;
    this.closeDelay = Objects.requireNonNull(closeDelay, "closeDelay");
    this.hold = hold;
    this.idHeader = idHeader.toLowerCase(Locale.ROOT);
    Thread acceptor = new Thread(this::accept, "plain-http-receiver-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** @return the endpoint to post to */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/hook");
  }

  /** @return whether connections stay open between requests */
  public boolean keepAlive() {
    return keepAlive;
  }

  /** @return requests read whole since the last {@link #reset()} */
  public int requests() {
    return requests.get();
  }

  /** @return connections accepted since the last {@link #reset()} */
  public int connections() {
    return connections.get();
  }

  /** @return distinct values of the id header since the last {@link #reset()} */
  public int distinct() {
    return ids.size();
  }

  /** @return requests being answered now */
  public int running() {
    return running.get();
  }

  /** @return the most requests being answered at once */
  public int mostRunning() {
    return mostRunning.get();
  }

  /** Lets every held request, and every later one, be answered. */
  public void release() {
    released.countDown();
  }

  /** Forgets the counts. */
  public void reset() {
    ids.clear();
    requests.set(0);
    connections.set(0);
    mostRunning.set(0);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.incrementAndGet();
        Thread thread = new Thread(() -> serve(socket), "plain-http-receiver-connection");
        thread.setDaemon(true);
        thread.start();
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      socket.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(socket.getInputStream());
      OutputStream out = socket.getOutputStream();
      do {
        String id = readRequest(in);
        if (id == null) {
          return; // the client closed the connection
        }
        if (!id.isEmpty()) {
          ids.add(id);
        }
        requests.incrementAndGet();
        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        try {
          if (hold) {
            released.await(20, TimeUnit.SECONDS);
          }
        } finally {
          running.decrementAndGet();
        }
        out.write((keepAlive ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
            : "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } while (keepAlive);
      if (!closeDelay.isZero()) {
        Thread.sleep(closeDelay.toMillis()); // the receiver's own pace before it closes, not a test wait
      }
    } catch (IOException | InterruptedException e) {
      // the client went away mid-request (nothing was answered), or the receiver is closing
    }
  }

  /** @return the request's id header value ("" without one), or {@code null} at the end of the stream */
  private @Nullable String readRequest(InputStream in) throws IOException {
    String requestLine = readLine(in);
    if (requestLine == null) {
      return null;
    }
    long length = 0;
    String id = "";
    while (true) {
      String header = readLine(in);
      if (header == null) {
        return null;
      }
      if (header.isEmpty()) {
        break;
      }
      int colon = header.indexOf(':');
      if (colon > 0) {
        String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = header.substring(colon + 1).trim();
        if (name.equals("content-length")) {
          length = Long.parseLong(value);
        } else if (name.equals(idHeader)) {
          id = value;
        }
      }
    }
    in.skipNBytes(length); // EOFException (an IOException) when the client sent fewer bytes
    return id;
  }

  private static @Nullable String readLine(InputStream in) throws IOException {
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
  public void close() {
    released.countDown();
    try {
      server.close();
    } catch (IOException e) {
      // closing is best effort
    }
  }
}
