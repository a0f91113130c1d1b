package dev.outbox4j.nats;

import dev.outbox4j.testkit.ListeningPort;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A second NATS server, started by a test from {@code /usr/sbin/nats-server} on a free port: TLS only (the given
 * certificate), one user with a password (or another authorization block), JetStream in a temporary directory. Stopped (and its process killed) by
 * {@link #close()}.
 */
final class TlsNatsServer implements AutoCloseable {
  static final String USER = "outbox";
  static final String PASSWORD = "n4ts-Secret-pw";

  final int port;
  private final Process process;

  TlsNatsServer(Path directory, Path certificate, Path key) throws IOException, InterruptedException {
    this(directory, certificate, key, "user: \"" + USER + "\"\n  password: \"" + PASSWORD + "\"");
  }

  /** @param authorization the body of the server's {@code authorization} block */
  TlsNatsServer(Path directory, Path certificate, Path key, String authorization)
      throws IOException, InterruptedException {
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    Path store = Files.createDirectories(directory.resolve("jetstream-" + port));
    Path config = directory.resolve("nats-" + port + ".conf");
    Files.writeString(config, String.join("\n",
        "listen: \"127.0.0.1:" + port + "\"",
        "tls {",
        "  cert_file: \"" + certificate + "\"",
        "  key_file: \"" + key + "\"",
        "  timeout: 2",
        "}",
        "authorization {",
        "  " + authorization,
        "}",
        "jetstream {",
        "  store_dir: \"" + store + "\"",
        "}",
        ""));
    process = new ProcessBuilder("/usr/sbin/nats-server", "-c", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(directory.resolve("nats-" + port + ".log").toFile())
        .start();
    ListeningPort.await(process, port, Duration.ofSeconds(15), directory.resolve("nats-" + port + ".log").toString());
  }

  String url() {
    return "tls://localhost:" + port;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
