package dev.outbox4j.relay.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Starts the relay from its built container image without a container runtime: the image tarball's layers are
 * unpacked, in order, into a root directory, and the image's own entrypoint, default arguments, environment and
 * working directory (from its config) are run against that root, each absolute path of the image read below it, as
 * a container's root would be. A configuration file is placed at the default arguments' {@code /config/relay.yaml},
 * as a mounted volume would be, and the dashboard port comes from an {@code OUTBOX4J_*} variable.
 *
 * <p>Runs after {@code package} (failsafe), on the tarball Jib wrote; needs {@code tar} on the path.
 */
class RelayImageIT {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @TempDir
  Path dir;

  @Test
  void the_image_runs_the_relay_as_an_unprivileged_user_and_answers_its_health_probes() throws Exception {
    Path root = unpack(Path.of(System.getProperty("outbox4j.image.tar", "target/outbox4j-relay-image.tar")));
    Map<String, Object> config = imageConfig(root.getParent());

    assertThat(uid(root, (String) config.get("User"))).as("the image's user").isNotZero();
    assertThat(config.get("ExposedPorts")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
        .containsKey("8080/tcp");
    assertThat(strings(config, "Cmd")).containsExactly("run", "--config", "/config/relay.yaml");

    String prefix = "img" + UUID.randomUUID().toString().replace("-", "").substring(0, 8) + "_";
    Files.writeString(root.resolve("config/relay.yaml"), String.join("\n",
        "database:",
        "  url: '" + RunDatabases.postgresUrl() + "'",
        "  migrate: true",
        "  table-prefix: " + prefix,
        "transports:",
        "  webhooks:",
        "    type: http",
        "    endpoint:",
        "      orders: http://127.0.0.1:9/orders",
        "destinations:",
        "  orders: webhooks",
        ""), StandardCharsets.UTF_8);
    int port = freePort();

    List<String> command = new ArrayList<>();
    for (String argument : strings(config, "Entrypoint")) {
      command.add(below(root, argument));
    }
    for (String argument : strings(config, "Cmd")) {
      command.add(below(root, argument));
    }
    ProcessBuilder relay = new ProcessBuilder(command)
        .directory(root.resolve(((String) config.get("WorkingDir")).substring(1)).toFile())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("relay.log").toFile());
    relay.environment().clear();
    for (String variable : strings(config, "Env")) {
      int equals = variable.indexOf('=');
      relay.environment().put(variable.substring(0, equals), below(root, variable.substring(equals + 1)));
    }
    relay.environment().put("OUTBOX4J_SERVER_PORT", Integer.toString(port));

    Process process = relay.start();
    try {
      HttpResponse<String> health = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> get("http://127.0.0.1:" + port + "/health/ready"), response -> response.statusCode() == 200);
      assertThat(health.body()).contains("\"UP\"");
      assertThat(get("http://127.0.0.1:" + port + "/health/live").statusCode()).isEqualTo(200);
      assertThat(process.isAlive()).isTrue();
    } catch (RuntimeException | AssertionError e) {
      throw new AssertionError("the relay from the image did not answer its health probes; its output:\n"
          + Files.readString(dir.resolve("relay.log")), e);
    } finally {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** Unpacks the image's layers, in the manifest's order, into {@code dir/image/root}; returns that root. */
  private Path unpack(Path tarball) throws IOException, InterruptedException {
    assertThat(tarball).as("the image tarball (built by jib:buildTar in package)").isRegularFile();
    Path image = Files.createDirectories(dir.resolve("image"));
    tar(image, "-xf", tarball.toAbsolutePath().toString());
    Path root = Files.createDirectories(image.resolve("root"));
    for (String layer : strings(manifest(image), "Layers")) {
      tar(root, "-xzf", image.resolve(layer).toString());
    }
    // The classpath file names the image's own paths; it is read as the root's, like every other absolute path here.
    Path classpath = root.resolve("app/jib-classpath-file");
    Files.writeString(classpath, Files.readString(classpath).strip().replace("/app/", root + "/app/"));
    return root;
  }

  /** Runs tar; its output (GNU tar warns about the archive's extended headers it does not know) only on failure. */
  private void tar(Path into, String mode, String archive) throws IOException, InterruptedException {
    Path log = dir.resolve("tar.log");
    Process tar = new ProcessBuilder("tar", mode, archive, "-C", into.toString()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    assertThat(tar.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(tar.exitValue()).as("tar %s %s: %s", mode, archive, Files.readString(log)).isZero();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> manifest(Path image) throws IOException {
    List<Map<String, Object>> manifest = new Yaml().load(Files.readString(image.resolve("manifest.json")));
    assertThat(manifest).hasSize(1);
    return manifest.get(0);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> imageConfig(Path image) throws IOException {
    Map<String, Object> file = new Yaml().load(Files.readString(image.resolve((String) manifest(image).get("Config"))));
    return (Map<String, Object>) file.get("config");
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Map<String, Object> map, String key) {
    return (List<String>) map.get(key);
  }

  /** @return the user's numeric id: given as a number, or looked up in the image's /etc/passwd */
  private static int uid(Path root, String user) throws IOException {
    String name = user.split(":")[0];
    if (name.chars().allMatch(Character::isDigit)) {
      return Integer.parseInt(name);
    }
    return Files.readAllLines(root.resolve("etc/passwd")).stream().map(line -> line.split(":"))
        .filter(fields -> fields[0].equals(name)).map(fields -> Integer.parseInt(fields[2])).findFirst()
        .orElseThrow(() -> new AssertionError("user " + name + " is not in the image's /etc/passwd"));
  }

  /** @return an absolute path of the image (or an {@code @argfile} naming one) read below the root, else as is */
  private static String below(Path root, String argument) {
    String at = argument.startsWith("@") ? "@" : "";
    String path = argument.substring(at.length());
    if (path.startsWith("/") && Files.exists(root.resolve(path.substring(1)))) {
      return at + root.resolve(path.substring(1));
    }
    return argument;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
