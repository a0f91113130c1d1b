package dev.outbox4j.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy a test can cut and restore, to take a broker away from a client and give it back without
 * restarting the broker.
 *
 * <p>While cut, every open connection is closed and new connections are accepted and closed at once (the listening
 * port stays bound, so restoring cannot lose it to another process). Thread-safe.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger refused = new AtomicInteger();
  private volatile boolean cut;
  private volatile boolean closed;

  private TcpProxy(ServerSocket server, int targetPort) {
    this.server = server;
    this.targetPort = targetPort;
  }

  /**
   * @param targetPort the loopback port to forward to
   * @return a running proxy on a random loopback port
   */
  static TcpProxy start(int targetPort) {
    try {
      ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      TcpProxy proxy = new TcpProxy(server, targetPort);
      Thread acceptor = new Thread(proxy::acceptLoop, "tcp-proxy-accept-" + server.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** @return the port clients connect to */
  int port() {
    return server.getLocalPort();
  }

  /** Drops every connection and refuses new ones until {@link #restore()}. */
  void cut() {
    cut = true;
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  /** Lets connections through again. */
  void restore() {
    cut = false;
  }

  /** @return connections refused while cut, a sign that clients kept trying */
  int refusedConnections() {
    return refused.get();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      if (cut) {
        refused.incrementAndGet();
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int read;
        while ((read = in.read(buffer)) >= 0) {
          out.write(buffer, 0, read);
          out.flush();
        }
      } catch (IOException e) {
        // connection cut or closed: fall through and close both ends
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "tcp-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    cut();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // already closed
    }
  }
}
