package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.logging.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A starting relay says, once, which mode each transport runs in and which lease and timeouts are in force and why. */
class StartReportTest {
  @TempDir Path dir;

  private RelayConfig config(String relay, String kafka) throws IOException {
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, "database:\n  url: 'jdbc:h2:file:" + dir.resolve("db") + "'\n  migrate: true\n"
        + relay
        + "server:\n  port: 0\n"
        + "transports:\n  hooks:\n    type: http\n    request-timeout: 20s\n"
        + "    endpoint.partner: http://127.0.0.1:9/in\n"
        + "  events:\n    type: kafka\n    bootstrap.servers: 127.0.0.1:9\n" + kafka
        + "destinations:\n  partner: hooks\n  orders: events\n");
    return ConfigReader.read(file, List.of(), Map.of());
  }

  @Test
  void an_unset_lease_and_timeout_are_reported_as_derived_from_the_longest_answer_bound() throws IOException {
    RelayConfig config = config("", "");
    try (RoutingTransport transport = RelayAssembly.transport(config)) {
      assertThat(StartReport.lines(config, transport.named())).containsExactly(
          "transport events (kafka): mode plain, answer bound 14s (from transport settings max.block +"
              + " delivery.timeout: defaults), destinations [orders]",
          "transport hooks (http): mode plain, answer bound 23s (from transport settings connect-timeout +"
              + " request-timeout: configured request-timeout, the rest defaults), destinations [partner]",
          "delivery timeout 23s (derived from transport settings: the longest answer bound, above the default 10s)",
          "lease 1m 9s (derived: 3 x the delivery timeout, above the default 30s)");
    }
  }

  @Test
  void configured_values_are_reported_as_configured() throws IOException {
    RelayConfig config = config("relay:\n  lease: 2m\n  delivery-timeout: 40s\n", "");
    try (RoutingTransport transport = RelayAssembly.transport(config)) {
      assertThat(StartReport.lines(config, transport.named())).endsWith(
          "delivery timeout 40s (config relay.delivery-timeout)", "lease 2m (config relay.lease)");
    }
  }

  @Test
  void a_running_relay_logs_the_block_once_at_start() throws IOException {
    RelayConfig config = config("", "");
    List<String> lines;
    try (LogCapture capture = LogCapture.of(StartReport.LOGGER);
        RelayRuntime runtime = RelayRuntime.start(config)) {
      assertThat(runtime.port()).isPositive();
      lines = capture.lines();
    }
    assertThat(lines).hasSize(4).allMatch(line -> line.startsWith("INFO "));
    assertThat(lines.get(3)).isEqualTo("INFO lease 1m 9s (derived: 3 x the delivery timeout, above the default 30s)");
  }
}
