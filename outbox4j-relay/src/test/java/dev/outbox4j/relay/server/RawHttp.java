package dev.outbox4j.relay.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A GET written by hand on a socket, for headers the JDK's client will not send as given ({@code Host}).
 *
 * @param status the answer's status code
 * @param text the whole answer: status line, headers and body
 */
record RawHttp(int status, String text) {
  static RawHttp get(int port, String path, String host) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new RawHttp(Integer.parseInt(text.substring(9, 12)), text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
