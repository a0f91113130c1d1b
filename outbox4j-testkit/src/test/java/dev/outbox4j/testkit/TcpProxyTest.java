package dev.outbox4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
}
