package dev.outbox4j.relay.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay process writes one log in one format, whatever logs: child JVMs write through every bridge
 * ({@link LogSources}) and run the relay itself, and every line they write is read back as a plain record (or its
 * tab-indented continuation) or as a JSON object with the documented fields.
 */
class LogFormatTest {
  /** The plain format's line (docs/relay-app.md, "Logging"). */
  static final Pattern PLAIN_LINE = Pattern.compile(
      "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z (TRACE|DEBUG|INFO|WARN|ERROR) +[\\w.$-]+ - .*");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void every_bridge_writes_one_plain_line_per_record_and_continues_exceptions_on_tab_indented_lines()
      throws Exception {
    List<String> lines = run(List.of(LogSources.class.getName()), Map.of(RelayLogging.FORMAT_VARIABLE, "plain"));

    List<String> records = lines.stream().filter(line -> !line.startsWith("\t")).toList();
    assertThat(records).allMatch(line -> PLAIN_LINE.matcher(line).matches(), "matches " + PLAIN_LINE);
    assertThat(records).hasSize(4);
    assertThat(records.get(0)).contains(" WARN  dev.outbox4j.relay - through System.Logger");
    assertThat(records.get(1)).contains(" WARN  org.postgresql.Driver - through java.util.logging");
    assertThat(records.get(2)).contains(" WARN  org.apache.kafka.clients.NetworkClient - through SLF4J with a"
        + " \"quoted\" word [destination=orders key=customer-7]");
    assertThat(records.get(3)).contains(" ERROR dev.outbox4j.relay - two");
    assertThat(String.join("\n", lines)).contains("- two\n\tlines\n\tjava.lang.IllegalStateException: outer\n",
        "\tCaused by: java.lang.IllegalArgumentException: inner");
    assertThat(String.join("\n", lines)).doesNotContain("not written");
  }

  @Test
  void every_bridge_writes_one_json_object_per_line_with_time_level_logger_message_and_context() throws Exception {
    List<String> lines = run(List.of(LogSources.class.getName()), Map.of(RelayLogging.FORMAT_VARIABLE, "json"));

    List<JsonNode> records = parseAll(lines);
    assertThat(records).hasSize(4);
    assertThat(records).extracting(r -> r.get("logger").asText()).containsExactly("dev.outbox4j.relay",
        "org.postgresql.Driver", "org.apache.kafka.clients.NetworkClient", "dev.outbox4j.relay");
    assertThat(records).extracting(r -> r.get("level").asText()).containsExactly("WARN", "WARN", "WARN", "ERROR");
    JsonNode slf4j = records.get(2);
    assertThat(slf4j.get("message").asText()).isEqualTo("through SLF4J with a \"quoted\" word");
    assertThat(slf4j.get("destination").asText()).isEqualTo("orders");
    assertThat(slf4j.get("key").asText()).isEqualTo("customer-7");
    JsonNode error = records.get(3);
    assertThat(error.get("message").asText()).isEqualTo("two\nlines");
    assertThat(error.get("exception").asText()).startsWith("java.lang.IllegalStateException: outer")
        .contains("Caused by: java.lang.IllegalArgumentException: inner");
  }

  @Test
  void the_relay_in_json_writes_only_json_lines_its_start_block_and_its_clients_records_included() throws Exception {
    Path config = relayConfig();
    List<String> lines = runRelay(config, "json", "\"transport events (kafka)");

    List<JsonNode> records = parseAll(lines);
    assertThat(records).extracting(r -> r.get("logger").asText())
        .contains("dev.outbox4j.relay.start", "dev.outbox4j.relay.doctor.RelayDoctor")
        .anyMatch(logger -> logger.startsWith("org.apache.kafka"));
    assertThat(records).extracting(r -> r.get("message").asText())
        .anyMatch(message -> message.startsWith("outbox4j relay running on"))
        .anyMatch(message -> message.startsWith("lease "));
  }

  @Test
  void the_relay_in_plain_writes_one_line_per_record_on_standard_error() throws Exception {
    Path config = relayConfig();
    List<String> lines = runRelay(config, "plain", "dev.outbox4j.relay.start - transport events (kafka)");

    assertThat(lines).allMatch(line -> line.startsWith("\t") || PLAIN_LINE.matcher(line).matches(),
        "matches " + PLAIN_LINE);
    assertThat(lines).anyMatch(line -> line.contains(" INFO  dev.outbox4j.relay.start - lease "))
        .anyMatch(line -> line.contains(" WARN  org.apache.kafka."));
  }

  /**
   * An H2 outbox, a webhook to a plain http:// endpoint (a doctor's finding, through System.Logger) and a Kafka
   * transport whose broker is a closed port (the client's warnings, through SLF4J).
   */
  private Path relayConfig() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, String.join("\n",
        "database:",
        "  url: 'jdbc:h2:file:" + dir.resolve("db") + "'",
        "  migrate: true",
        "server:",
        "  port: 0",
        "transports:",
        "  hooks:",
        "    type: http",
        "    signing-secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "    endpoint.partner: http://partner.example/in",
        "  events:",
        "    type: kafka",
        "    bootstrap.servers: 127.0.0.1:" + closed,
        "destinations:",
        "  partner: hooks",
        "  orders: events",
        ""));
    return file;
  }

  /** Runs the relay until its start block, its banner and a Kafka client's warning are written, then kills it. */
  private List<String> runRelay(Path config, String format, String startLine) throws Exception {
    Path out = dir.resolve("out-" + format + ".log");
    Path err = dir.resolve("err-" + format + ".log");
    Process relay = start(List.of("dev.outbox4j.relay.Main", "run", "--config", config.toString(), "--log-format",
        format), Map.of(), out, err);
    try {
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          String written = Files.readString(err, StandardCharsets.UTF_8);
          String banner = Files.readString(format.equals("json") ? err : out, StandardCharsets.UTF_8);
          return !relay.isAlive() || written.contains(startLine) && written.contains("org.apache.kafka")
              && banner.contains("Stop with Ctrl-C or SIGTERM.");
        });
        assertThat(relay.isAlive()).as("running").isTrue();
      } catch (org.awaitility.core.ConditionTimeoutException | AssertionError e) {
        throw new AssertionError("standard error:\n" + Files.readString(err) + "\nstandard output:\n"
            + Files.readString(out), e);
      }
      // Every record is written as it is logged (Logback's console appender flushes each): what is there is the log.
      relay.destroyForcibly();
      assertThat(relay.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      relay.destroyForcibly();
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(err, StandardCharsets.UTF_8));
    if (format.equals("json")) {
      lines.addAll(Files.readAllLines(out, StandardCharsets.UTF_8)); // in JSON nothing else may be written anywhere
    }
    return lines;
  }

  private List<String> run(List<String> command, Map<String, String> environment) throws Exception {
    Path out = dir.resolve("out.log");
    Path err = dir.resolve("err.log");
    Process child = start(command, environment, out, err);
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as(Files.readString(err)).isZero();
    assertThat(Files.readString(out)).isEmpty();
    return Files.readAllLines(err, StandardCharsets.UTF_8);
  }

  private static Process start(List<String> command, Map<String, String> environment, Path out, Path err)
      throws IOException {
    List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path")));
    line.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(line).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("OUTBOX4J_"));
    builder.environment().putAll(environment);
    return builder.start();
  }

  private static List<JsonNode> parseAll(List<String> lines) {
    List<JsonNode> records = new ArrayList<>();
    for (String line : lines) {
      JsonNode record;
      try {
        record = JSON.readTree(line);
      } catch (IOException e) {
        throw new AssertionError("not a JSON line: " + line, e);
      }
      assertThat(record.isObject()).as(line).isTrue();
      for (String field : List.of("time", "level", "logger", "thread", "message")) {
        assertThat(record.hasNonNull(field)).as("%s in %s", field, line).isTrue();
      }
      assertThat(record.get("time").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
      records.add(record);
    }
    return records;
  }
}
