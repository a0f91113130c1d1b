package dev.outbox4j.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The webhook receiver of the HTTP rows, built as Python's {@code http.server.ThreadingHTTPServer} is (the server a
 * new user tried first): a thread per connection, a listen backlog of 5 ({@code socketserver}'s
 * {@code request_queue_size}), every {@code POST} answered {@code 200} with an empty body. Either it keeps each
 * connection open for the next request (HTTP/1.1, Python's {@code protocol_version = "HTTP/1.1"}), or it answers in
 * HTTP/1.0 and closes the connection after each response, without a {@code Connection: close} header (Python's
 * default): a client that pools such a connection finds it closed when it sends the next request on it.
 *
 * <p>It counts the distinct {@code Outbox-Message-Id} values it answered, and every request. Thread-safe.
 */
final class WebhookReceiver implements AutoCloseable {
  /** Python's {@code socketserver.TCPServer.request_queue_size}. */
  static final int BACKLOG = 5;

  private final boolean keepAlive;
  private final ServerSocket server;
  private final Thread acceptor;
  private final Set<String> ids = ConcurrentHashMap.newKeySet();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong connections = new AtomicLong();

  /** @param keepAlive HTTP/1.1 with connections kept open; otherwise HTTP/1.0 answers and a close after each */
  WebhookReceiver(boolean keepAlive) throws IOException {
    this.keepAlive = keepAlive;
    this.server = new ServerSocket(0, BACKLOG, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "bench-webhook-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** @return the endpoint to post to */
  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/hook");
  }

  /** @return whether connections stay open between requests */
  boolean keepAlive() {
    return keepAlive;
  }

  /** @return distinct message ids answered since the last {@link #reset()} */
  long distinct() {
    return ids.size();
  }

  /** @return requests answered since the last {@link #reset()} (duplicates included) */
  long requests() {
    return requests.get();
  }

  /** @return connections accepted since the last {@link #reset()} */
  long connections() {
    return connections.get();
  }

  void reset() {
    ids.clear();
    requests.set(0);
    connections.set(0);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.incrementAndGet();
        Thread handler = new Thread(() -> serve(socket), "bench-webhook-connection");
        handler.setDaemon(true);
        handler.start();
      } catch (IOException e) {
        return; // closed
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
        out.write((keepAlive ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
            : "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } while (keepAlive);
    } catch (IOException e) {
      // the client went away mid-request: nothing was answered
    }
  }

  /** @return the request's message id ("" without one), or {@code null} at the end of the stream */
  private static String readRequest(InputStream in) throws IOException {
    String line = readLine(in);
    if (line == null) {
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
        } else if (name.equals("outbox-message-id")) {
          id = value;
        }
      }
    }
    in.skipNBytes(length); // EOFException (an IOException) when the client sent fewer bytes
    return id;
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
    return line.length() == 0 ? null : line.toString();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
