package dev.outbox4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A loopback TCP proxy a test controls, to make a broker "go away" and come back without touching the broker: point the
 * client at {@link #port()}, then {@link #cut()} (every open connection is closed and new ones are refused) and
 * {@link #restore()} (connections are accepted again, on the same port). Two milder faults keep the connections open:
 * {@link #stall()} stops forwarding and stops reading, as a broker that blocks a publishing connection under a resource
 * alarm does (the client's writes fill the socket buffers and then block), until {@link #resume()}; and
 * {@link #delay(Duration, Duration)} holds every chunk for a while in either direction, so that a request reaches the
 * broker and its answer comes back late.
 *
 * <p>Why this shape: closing the listening socket on {@link #cut()}, rather than accepting and dropping, makes a
 * client's reconnect attempts fail the way they fail when a broker is down (connection refused). The port is kept by
 * rebinding it with {@code SO_REUSEADDR}, so a client's configured address stays valid. A stall stops <em>reading</em>,
 * not only forwarding, so the bytes a client writes meanwhile stay in the kernel's buffers, where a client that resets
 * its connection can still withdraw them, exactly as with a real broker that stopped reading.
 *
 * <p>Binds to 127.0.0.1 only. Four threads per proxied connection (a reader and a writer each way), which is plenty
 * for tests. Thread-safe.
 */
public final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  /** Guards {@link #stalled} and {@link #busyReaders}; readers and writers wait on it while stalled. */
  private final Object gate = new Object();
  private boolean stalled;
  private int busyReaders;
  private volatile Duration delayToTarget = Duration.ZERO;
  private volatile Duration delayToClient = Duration.ZERO;
  private @Nullable Thread acceptor;
  private @Nullable ServerSocket listener;
  private boolean closed;

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

  /**
   * Stops forwarding and stops reading, in both directions, on every connection (open ones and new ones), until
   * {@link #resume()}. Connections stay open; what a client writes meanwhile stays in the socket buffers, so once they
   * are full its writes block. Returns once no chunk is being read any more. Idempotent.
   */
  public void stall() {
    synchronized (gate) {
      stalled = true;
      while (busyReaders > 0) {
        try {
          gate.wait(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Forwards again after {@link #stall()}: what the sockets buffered meanwhile flows on. Idempotent. */
  public void resume() {
    synchronized (gate) {
      stalled = false;
      gate.notifyAll();
    }
  }

  /** @return {@code true} between {@link #stall()} and {@link #resume()} */
  public boolean isStalled() {
    synchronized (gate) {
      return stalled;
    }
  }

  /**
   * Holds each chunk read from now on for a while before forwarding it, keeping the order of the bytes. Zero (the
   * default) forwards at once. A connection closed by one side is closed on the other only after the chunks before
   * the close were forwarded, as data in flight arrives before a close.
   *
   * @param toTarget the delay of bytes from the client to the target (a request reaches the broker late)
   * @param toClient the delay of bytes from the target to the client (an answer comes back late)
   * @throws IllegalArgumentException if a delay is negative
   */
  public void delay(Duration toTarget, Duration toClient) {
    if (toTarget.isNegative() || toClient.isNegative()) {
      throw new IllegalArgumentException("delays must not be negative, were " + toTarget + " and " + toClient);
    }
    delayToTarget = toTarget;
    delayToClient = toClient;
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

  /** A chunk read from one side, due to be written to the other at {@code due} (nanoTime); empty = end of stream. */
  private record Chunk(byte[] bytes, long due) {}

  private void pump(Socket from, Socket to, String direction) {
    boolean toTarget = direction.equals("up");
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> read(from, to, queue, toTarget), "tcp-proxy-" + direction + "-read-" + port);
    Thread writer = new Thread(() -> write(from, to, queue), "tcp-proxy-" + direction + "-write-" + port);
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
  }

  private void read(Socket from, Socket to, BlockingQueue<Chunk> queue, boolean toTarget) {
    byte[] buffer = new byte[16 * 1024];
    try {
      from.setSoTimeout(25); // wake up now and then, so a stall takes effect between reads
      InputStream in = from.getInputStream();
      while (true) {
        if (!enterRead(from)) {
          break;
        }
        int read;
        try {
          read = in.read(buffer);
          if (read > 0) {
            Duration delay = toTarget ? delayToTarget : delayToClient;
            queue.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delay.toNanos()));
          }
        } catch (SocketTimeoutException e) {
          continue;
        } finally {
          leaveRead();
        }
        if (read < 0) {
          break;
        }
      }
    } catch (IOException e) {
      // closed by cut(), reset or closed by the other side: end this direction after what was read
    } finally {
      queue.add(new Chunk(new byte[0], 0));
    }
  }

  /** @return {@code false} once the socket was closed while waiting out a stall */
  private boolean enterRead(Socket from) {
    synchronized (gate) {
      while (stalled) {
        if (from.isClosed()) {
          return false;
        }
        try {
          gate.wait(25);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      busyReaders++;
      return true;
    }
  }

  private void leaveRead() {
    synchronized (gate) {
      busyReaders--;
      gate.notifyAll();
    }
  }

  private void write(Socket from, Socket to, BlockingQueue<Chunk> queue) {
    try {
      OutputStream out = to.getOutputStream();
      while (true) {
        Chunk chunk = queue.take();
        if (chunk.bytes().length == 0) {
          break;
        }
        long wait;
        while ((wait = chunk.due() - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(25)));
          if (to.isClosed()) {
            return;
          }
        }
        if (!awaitNotStalled(to)) {
          return;
        }
        out.write(chunk.bytes());
        out.flush();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // the connection broke: both ends are closed below
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  /** @return {@code false} once the socket was closed while waiting out a stall */
  private boolean awaitNotStalled(Socket to) throws InterruptedException {
    synchronized (gate) {
      while (stalled) {
        if (to.isClosed()) {
          return false;
        }
        gate.wait(25);
      }
      return true;
    }
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
        + (isCut() ? ", cut" : "") + (isStalled() ? ", stalled" : "") + "}";
  }
}
