package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {
  private ServerSocket echoServer;
  private TcpProxy proxy;

  @BeforeEach
  void startEchoServerBehindProxy() throws IOException {
    echoServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!echoServer.isClosed()) {
        try {
          Socket socket = echoServer.accept();
          Thread echo = new Thread(() -> {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
              in.transferTo(out);
            } catch (IOException e) {
              // the test closed it
            }
          });
          echo.setDaemon(true);
          echo.start();
        } catch (IOException e) {
          return;
        }
      }
    });
    acceptor.setDaemon(true);
    acceptor.start();
    proxy = TcpProxy.start("127.0.0.1", echoServer.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echoServer.close();
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(proxy.host(), proxy.port()), 5_000);
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String roundTrip(Socket socket, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    byte[] back = socket.getInputStream().readNBytes(bytes.length);
    return new String(back, StandardCharsets.UTF_8);
  }

  @Test
  void bytes_pass_through_both_ways() throws IOException {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "hello through the proxy")).isEqualTo("hello through the proxy");
    }
  }

  @Test
  void cut_closes_open_connections_and_refuses_new_ones() throws IOException {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "before")).isEqualTo("before");

      proxy.cut();

      assertThat(proxy.isCut()).isTrue();
      int read;
      try {
        read = socket.getInputStream().read();
      } catch (IOException e) {
        read = -1; // a reset is as good as an end of stream here
      }
      assertThat(read).isEqualTo(-1);
    }
    assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
  }

  @Test
  void restore_accepts_connections_again_on_the_same_port() throws IOException {
    int port = proxy.port();
    proxy.cut();

    proxy.restore();

    assertThat(proxy.port()).isEqualTo(port);
    assertThat(proxy.isCut()).isFalse();
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "after")).isEqualTo("after");
    }
  }

  @Test
  void stall_holds_every_byte_without_closing_and_resume_delivers_them() throws IOException {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "before")).isEqualTo("before");
      proxy.stall();
      assertThat(proxy.isStalled()).isTrue();
      socket.setSoTimeout(300);
      socket.getOutputStream().write("held".getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();

      assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(java.net.SocketTimeoutException.class);
      assertThat(socket.isClosed()).isFalse();

      proxy.resume();
      socket.setSoTimeout(10_000);
      assertThat(new String(socket.getInputStream().readNBytes(4), StandardCharsets.UTF_8)).isEqualTo("held");
      assertThat(roundTrip(socket, "after")).isEqualTo("after");
    }
  }

  @Test
  void a_stall_blocks_the_clients_writes_and_resume_delivers_what_was_buffered() throws Exception {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "before")).isEqualTo("before");
      proxy.stall();
      byte[] lot = new byte[64 * 1024 * 1024];
      CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
        try {
          socket.getOutputStream().write(lot);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });

      assertThat(proxy.isStalled()).isTrue();
      Thread.sleep(300); // a bounded pause to show that the write stays blocked; nothing to await
      assertThat(writing).as("64 MiB cannot all fit into the socket buffers of a stalled connection").isNotDone();

      proxy.resume();
      byte[] back = new byte[lot.length];
      int read = 0;
      socket.setSoTimeout(30_000);
      while (read < back.length) {
        int n = socket.getInputStream().read(back, read, back.length - read);
        assertThat(n).isPositive();
        read += n;
      }
      writing.get(30, TimeUnit.SECONDS);
      assertThat(roundTrip(socket, "after")).isEqualTo("after");
    }
  }

  @Test
  void bytes_the_stalled_side_had_already_buffered_still_arrive_after_the_client_resets() throws Exception {
    // Linux keeps data that reached the receiver's socket buffer readable after a reset from the sender; a broker that
    // stopped reading (a resource alarm) reads it when it resumes. A client can withdraw only what it still holds.
    AtomicLong received = new AtomicLong();
    try (ServerSocket counting = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        TcpProxy countingProxy = TcpProxy.start("127.0.0.1", counting.getLocalPort())) {
      Thread acceptor = new Thread(() -> {
        try (Socket accepted = counting.accept(); InputStream in = accepted.getInputStream()) {
          byte[] buffer = new byte[8192];
          int n;
          while ((n = in.read(buffer)) >= 0) {
            received.addAndGet(n);
          }
        } catch (IOException e) {
          // reset: counted what arrived
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress(countingProxy.host(), countingProxy.port()), 5_000);
      socket.getOutputStream().write(new byte[100]);
      await().atMost(Duration.ofSeconds(10)).until(() -> received.get() == 100);

      countingProxy.stall();
      socket.getOutputStream().write(new byte[1000]);
      socket.setSoLinger(true, 0);
      socket.close(); // a reset, not a graceful close
      countingProxy.resume();

      acceptor.join(10_000);
      assertThat(received.get()).as("the proxy's socket buffer held them; the reset did not withdraw them")
          .isEqualTo(1100);
    }
  }

  @Test
  void a_delay_holds_each_direction_for_the_given_time() throws IOException {
    proxy.delay(Duration.ofMillis(200), Duration.ofMillis(300));
    try (Socket socket = connect()) {
      long start = System.nanoTime();
      assertThat(roundTrip(socket, "late")).isEqualTo("late");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));

      proxy.delay(Duration.ZERO, Duration.ZERO);
      start = System.nanoTime();
      assertThat(roundTrip(socket, "prompt")).isEqualTo("prompt");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(400));
    }
  }
}
