package dev.outbox4j.rabbitmq;

import dev.outbox4j.testkit.ListeningPort;
import dev.outbox4j.testkit.TestCertificates;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A second RabbitMQ node started by a test from the machine's {@code rabbitmq-server}, beside the one on 5672: its own
 * node name, ports, data and log directories, a TLS listener only (the test CA's server certificate; client
 * certificates verified when sent), the {@code rabbitmq_auth_mechanism_ssl} plugin for SASL EXTERNAL. Users: the
 * default {@code guest}, {@value #USER} with {@link #PASSWORD}, and {@code outbox4j-client} (the test
 * client certificate's common name) for EXTERNAL. Stopped with {@code rabbitmqctl stop} by {@link #close()}.
 *
 * <p>The server drops to the {@code rabbitmq} user, so the directory it reads and writes is opened to everyone.
 */
final class TlsRabbitNode implements AutoCloseable {
  static final String USER = "outbox";
  static final String PASSWORD = "r4bbit-Secret-pw";

  final int port;
  final String node;
  private final Path directory;
  private final Process process;

  TlsRabbitNode(TestCertificates certificates) throws IOException, InterruptedException {
    port = freePort();
    int distributionPort = freePort();
    node = "outbox4jtls" + port + "@localhost";
    directory = Files.createTempDirectory("outbox4j-rabbit-tls");
    Path mnesia = Files.createDirectories(directory.resolve("mnesia"));
    Path logs = Files.createDirectories(directory.resolve("log"));
    for (String name : List.of("ca.pem", "server.pem", "server-key.pem")) {
      Files.copy(certificates.file(name), directory.resolve(name));
    }
    Files.writeString(directory.resolve("plugins"), "[rabbitmq_auth_mechanism_ssl].\n");
    Files.writeString(directory.resolve("rabbit.conf"), String.join("\n",
        "listeners.tcp = none",
        "listeners.ssl.default = 127.0.0.1:" + port,
        "ssl_options.cacertfile = " + directory.resolve("ca.pem"),
        "ssl_options.certfile = " + directory.resolve("server.pem"),
        "ssl_options.keyfile = " + directory.resolve("server-key.pem"),
        "ssl_options.verify = verify_peer",
        "ssl_options.fail_if_no_peer_cert = false",
        "ssl_cert_login_from = common_name",
        "auth_mechanisms.1 = PLAIN",
        "auth_mechanisms.2 = AMQPLAIN",
        "auth_mechanisms.3 = EXTERNAL",
        "loopback_users = none",
        ""));
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.toList()) {
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(
            Files.isDirectory(path) ? "rwxrwxrwx" : "rw-rw-rw-"));
      }
    }
    ProcessBuilder builder = new ProcessBuilder("rabbitmq-server")
        .redirectErrorStream(true)
        .redirectOutput(directory.resolve("server.out").toFile());
    builder.environment().putAll(Map.of(
        "RABBITMQ_NODENAME", node,
        "RABBITMQ_NODE_PORT", Integer.toString(port),
        "RABBITMQ_DIST_PORT", Integer.toString(distributionPort),
        "RABBITMQ_CONFIG_FILE", directory.resolve("rabbit").toString(),
        "RABBITMQ_MNESIA_BASE", mnesia.toString(),
        "RABBITMQ_LOG_BASE", logs.toString(),
        "RABBITMQ_ENABLED_PLUGINS_FILE", directory.resolve("plugins").toString(),
        "RABBITMQ_PID_FILE", directory.resolve("pid").toString()));
    process = builder.start();
    awaitListening(Duration.ofSeconds(90));
    control("add_user", USER, PASSWORD);
    control("set_permissions", USER, ".*", ".*", ".*");
    control("add_user", "outbox4j-client", "unused-" + PASSWORD);
    control("set_permissions", "outbox4j-client", ".*", ".*", ".*");
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0)) {
      return probe.getLocalPort();
    }
  }

  private void awaitListening(Duration limit) {
    ListeningPort.await(process, port, limit, "RabbitMQ node " + node + "'s " + directory.resolve("server.out"));
  }

  private void control(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-n", node));
    command.addAll(List.of(arguments));
    Process control = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    if (!control.waitFor(60, TimeUnit.SECONDS) || control.exitValue() != 0) {
      control.destroyForcibly();
      throw new IllegalStateException("rabbitmqctl " + arguments[0] + " failed on " + node);
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      control("stop");
    } finally {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      try (Stream<Path> paths = Files.walk(directory)) {
        paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }
}
