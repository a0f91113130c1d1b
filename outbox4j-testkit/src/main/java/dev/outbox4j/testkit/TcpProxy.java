package dev.outbox4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A loopback TCP proxy a test controls, to make a broker "go away" and come back without touching the broker: point the
 * client at {@link #port()}, then {@link #cut()} (every open connection is closed and new ones are refused) and
 * {@link #restore()} (connections are accepted again, on the same port).
 *
 * <p>Why this shape: closing the listening socket on {@link #cut()}, rather than accepting and dropping, makes a
 * client's reconnect attempts fail the way they fail when a broker is down (connection refused). The port is kept by
 * rebinding it with {@code SO_REUSEADDR}, so a client's configured address stays valid.
 *
 * <p>Binds to 127.0.0.1 only. Two threads per proxied connection, which is plenty for tests. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private @Nullable Thread acceptor;
  private @Nullable ServerSocket listener;
  private boolean closed;
  private final Object stallLock = new Object();
  private volatile boolean stalled;

  private TcpProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    ServerSocket server = openListener(0);
    this.port = server.getLocalPort();
    this.listener = server;
    startAccepting(server);
  }

  /**
   * Starts a proxy on a free loopback port.
   *
   * @param host the target host, for example {@code 127.0.0.1}
   * @param port the target port
   * @return a running proxy forwarding to {@code host:port}
   * @throws UncheckedIOException if no local port can be bound
   */
  public static TcpProxy start(String host, int port) {
    try {
      return new TcpProxy(new InetSocketAddress(Objects.requireNonNull(host, "host"), port));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the TCP proxy", e);
    }
  }

  /** @return the local port clients connect to; stays the same across {@link #cut()} and {@link #restore()} */
  public int port() {
    return port;
  }

  /** @return {@code 127.0.0.1}, the only address the proxy listens on */
  public String host() {
    return "127.0.0.1";
  }

  /**
   * Stops forwarding bytes in both directions without closing anything: connections stay open, new ones are accepted,
   * and whatever either side sends is held until {@link #resume()}. This is a half-open network path (a failover
   * without a TCP reset, a silently dropped route): a client waiting for an answer waits until its own timeout fires.
   */
  public void stall() {
    stalled = true;
  }

  /** Forwards again, delivering whatever was held since {@link #stall()}. */
  public void resume() {
    synchronized (stallLock) {
      stalled = false;
      stallLock.notifyAll();
    }
  }

  /** @return {@code true} between {@link #stall()} and {@link #resume()} */
  public boolean isStalled() {
    return stalled;
  }

  private void awaitNotStalled(Socket to) throws InterruptedException {
    synchronized (stallLock) {
      while (stalled && !to.isClosed()) {
        stallLock.wait(100); // bounded: cut() and close() close the sockets, which ends the pump on its next write
      }
    }
  }

  /** @return {@code true} between {@link #cut()} and {@link #restore()} */
  public boolean isCut() {
    synchronized (lock) {
      return listener == null;
    }
  }

  /** Closes every open connection and refuses new ones until {@link #restore()}. Idempotent. */
  public void cut() {
    Thread acceptorToJoin;
    synchronized (lock) {
      ServerSocket server = listener;
      listener = null;
      closeQuietly(server);
      acceptorToJoin = acceptor;
      acceptor = null;
    }
    // The JDK may finish closing a listening socket only when the thread blocked in accept() returns; until then the
    // kernel still completes connections into the backlog. Wait for the acceptor so "cut" means refused on return.
    if (acceptorToJoin != null && acceptorToJoin != Thread.currentThread()) {
      try {
        acceptorToJoin.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (Socket socket : sockets) {
      closeQuietly(socket);
    }
    sockets.clear();
  }

  /**
   * Accepts connections again, on the same port. Idempotent.
   *
   * @throws UncheckedIOException if the port cannot be bound again
   * @throws IllegalStateException if the proxy was closed
   */
  public void restore() {
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the proxy is closed");
      }
      if (listener != null) {
        return;
      }
      try {
        ServerSocket server = openListener(port);
        listener = server;
        startAccepting(server);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot listen on port " + port + " again", e);
      }
    }
  }

  /** Stops the proxy and closes every connection. Idempotent. */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
    }
    cut();
  }

  private static ServerSocket openListener(int localPort) throws IOException {
    ServerSocket server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), localPort), 128);
    return server;
  }

  /** Called with {@link #lock} held. */
  private void startAccepting(ServerSocket server) {
    Thread thread = new Thread(() -> accept(server), "tcp-proxy-accept-" + port);
    thread.setDaemon(true);
    acceptor = thread;
    thread.start();
  }

  private void accept(ServerSocket server) {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed by cut() or close()
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(target, 5_000);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      sockets.add(client);
      sockets.add(upstream);
      if (isCut()) { // cut() ran between accept and here: do not let this connection survive it
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      pump(client, upstream, "up");
      pump(upstream, client, "down");
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int read;
        while ((read = in.read(buffer)) >= 0) {
          awaitNotStalled(to);
          out.write(buffer, 0, read);
          out.flush();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (SocketException e) {
        // closed by cut(), or by the other side
      } catch (IOException e) {
        // the connection broke: both ends are closed below
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        sockets.remove(from);
        sockets.remove(to);
      }
    }, "tcp-proxy-" + direction + "-" + port);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(@Nullable AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      // nothing to do: it is going away either way
    }
  }

  @Override
  public String toString() {
    return "TcpProxy{127.0.0.1:" + port + " -> " + target.getHostString() + ":" + target.getPort()
        + (isCut() ? ", cut" : "") + "}";
  }
}
