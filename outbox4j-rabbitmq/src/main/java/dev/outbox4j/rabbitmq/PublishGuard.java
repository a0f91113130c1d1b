package dev.outbox4j.rabbitmq;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * The last check before a publish's bytes reach the kernel: while the publisher writes a publish, every write to the
 * connection's socket first checks that publish's bound, and one past it resets the connection instead of writing.
 *
 * <h2>Why</h2>
 * The publisher checks a publish's bound before it begins to write it, but a process can be stopped whole (a long GC
 * pause, a frozen VM, {@code SIGSTOP}) between that check and the write, and resume long after: the write would then
 * land a copy after another relay took the entry over and sent its key's next message (a late copy overtaking). The
 * client also buffers frames, and a buffered part of a publish can be flushed by another thread (a heartbeat). So the
 * check sits in the socket's own output stream, just before the system call, whichever thread writes; once it trips,
 * the socket is closed with {@code SO_LINGER} 0, so that nothing buffered can follow, and recovery opens a fresh
 * connection. What remains is the few instructions between the check and the system call.
 *
 * <p>Plain connections only: a TLS socket encrypts and writes inside the JDK, below any stream a client can wrap.
 *
 * <p>Thread-safe.
 */
final class PublishGuard {
  private static final long NONE = Long.MIN_VALUE;
  /** The bound, on {@link System#nanoTime()}, of the publish being written; {@link #NONE} between publishes. */
  private volatile long writingUntil = NONE;

  /** Called by the publisher before it writes a publish whose bound is {@code deadline} ({@link System#nanoTime()}). */
  void writing(long deadline) {
    writingUntil = deadline == NONE ? deadline + 1 : deadline;
  }

  /** Called by the publisher once the publish was written (or failed). */
  void written() {
    writingUntil = NONE;
  }

  /** @return a factory of plain sockets whose writes pass this guard */
  SocketFactory socketFactory() {
    return new GuardedSocketFactory();
  }

  private void check(Socket socket) throws IOException {
    long bound = writingUntil;
    if (bound != NONE && System.nanoTime() - bound >= 0) {
      try {
        socket.setSoLinger(true, 0);
      } finally {
        socket.close();
      }
      throw new IOException("a publish reached the socket after its bound (the process stood still): the connection"
          + " was reset so that no part of it is sent");
    }
  }

  /** A plain socket whose output stream passes {@link #check} before every write. */
  private final class GuardedSocket extends Socket {
    @Override
    public OutputStream getOutputStream() throws IOException {
      OutputStream raw = super.getOutputStream();
      return new FilterOutputStream(raw) {
        @Override
        public void write(int b) throws IOException {
          check(GuardedSocket.this);
          raw.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
          check(GuardedSocket.this);
          raw.write(bytes, offset, length);
        }
      };
    }
  }

  /** Makes {@link GuardedSocket}s; the client creates them unconnected and connects them itself. */
  private final class GuardedSocketFactory extends SocketFactory {
    @Override
    public Socket createSocket() {
      return new GuardedSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
      return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
        throws IOException {
      return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private Socket connected(InetSocketAddress remote, @Nullable InetSocketAddress local) throws IOException {
      Socket socket = new GuardedSocket();
      try {
        if (local != null) {
          socket.bind(local);
        }
        socket.connect(remote);
        return socket;
      } catch (IOException e) {
        socket.close();
        throw e;
      }
    }
  }
}
