package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.Message;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.runtime.RelayRuntime;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.testkit.TestCertificates;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status --relay} against a relay serving HTTPS with a private authority's certificate: it trusts the authority
 * given with {@code --relay-ca} or {@code server.tls.ca}, exits 1 saying what to do when it cannot ask the relay, and
 * lists the operator's and the relay's pauses together, never "none" beside a paused destination. The relay's faces
 * (API, readiness) say when a paused destination's entries are next sent, never a time already past.
 */
class StatusRelayTest {
  private static final String PROBE = "a probe: a few of its entries";
  private static final String HELD_BACK = "the entries it holds back, as they come back";

  @TempDir Path dir;

  private Path config(TestCertificates certificates, String extra) throws Exception {
    return Files.writeString(dir.resolve("relay.yaml"), String.join("\n",
        "database:",
        "  url: 'jdbc:h2:file:" + dir.resolve("db") + "'",
        "  migrate: true",
        "server:",
        "  port: 0",
        "  tls:",
        "    certificate: " + certificates.file("server.pem"),
        "    key: " + certificates.file("server-key.pem"),
        extra,
        "transports:",
        "  hooks:",
        "    type: http",
        "    endpoint.orders: http://127.0.0.1:9/refused",
        "destinations:",
        "  orders: hooks",
        ""));
  }

  @Test
  void status_trusts_the_relays_private_authority_when_told_and_exits_1_saying_why_when_it_cannot_ask()
      throws Exception {
    TestCertificates certificates = TestCertificates.createIn(dir.resolve("certs"));
    Path file = config(certificates, "");
    try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
      String base = runtime.baseUrl();
      assertThat(base).startsWith("https://");

      CliRun untrusted = CliRun.of("status", "--config", file.toString(), "--relay", base);
      assertThat(untrusted.code()).as("the relay could not be asked").isEqualTo(ExitCodes.FAILED);
      assertThat(untrusted.err()).contains("could not ask the relay at " + base, "certificate is not trusted",
          "--relay-ca FILE", "server.tls.ca");
      assertThat(untrusted.out()).contains("paused       none by an operator (the relay could not be asked)");

      CliRun trusted = CliRun.of("status", "--config", file.toString(), "--relay", base, "--relay-ca",
          certificates.file("ca.pem").toString());
      assertThat(trusted.code()).as(trusted.err()).isZero();
      assertThat(trusted.out()).contains("paused       none (every destination of the relay at " + base + " flowing)");

      Path withCa = config(certificates, "    ca: " + certificates.file("ca.pem"));
      CliRun fromConfig = CliRun.of("status", "--config", withCa.toString(), "--relay", base);
      assertThat(fromConfig.code()).as(fromConfig.err()).isZero();

      int closed;
      try (ServerSocket socket = new ServerSocket(0)) {
        closed = socket.getLocalPort();
      }
      CliRun nobody = CliRun.of("status", "--config", withCa.toString(), "--relay", "https://127.0.0.1:" + closed,
          "--json");
      assertThat(nobody.code()).isEqualTo(ExitCodes.FAILED);
      assertThat(nobody.err()).contains("nothing answers at 127.0.0.1:" + closed);
      assertThat(nobody.out()).contains("\"relayPausedDestinations\":null");
    }
  }

  @Test
  void status_lists_the_operators_and_the_relays_pauses_together_with_when_entries_are_next_sent() throws Exception {
    TestCertificates certificates = TestCertificates.createIn(dir.resolve("certs"));
    Path file = config(certificates, "    ca: " + certificates.file("ca.pem"));
    try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
      String base = runtime.baseUrl();
      runtime.store().pauseDestination("legacy", "alice", "migrating", Instant.now());
      // a refused connection is an outage at once: 'orders' is paused by the relay, not the operator
      runtime.store().enqueue(Message.builder().withDestination("orders").withPayload("{}").build());
      await().atMost(Duration.ofSeconds(30)).until(() -> runtime.relay().pausedDestinations().size() == 2);

      CliRun status = CliRun.of("status", "--config", file.toString(), "--relay", base);
      assertThat(status.code()).as(status.err()).isZero();
      assertThat(status.out()).contains("paused       legacy  paused by alice: migrating")
          .containsPattern("paused       orders  outage, paused since \\S+; next send: \\S+Z \\((" + PROBE + "|"
              + HELD_BACK + ")\\); 0 failed probes; last error: connection refused")
          .doesNotContain("none");

      HttpClient client = HttpClient.newBuilder().sslContext(TlsSettings.builder()
          .withTrustStore(certificates.file("ca.pem"), null).build().sslContext()).build();
      String api = client.send(HttpRequest.newBuilder(URI.create(base + "/api/destinations")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(api).contains("\"destination\":\"orders\",\"cause\":\"OUTAGE\",\"state\":\"paused\"",
          "\"nextSend\":\"nothing until an operator resumes it\"")
          .containsPattern("\"nextSendAt\":\"[^\"]+\",\"nextSendInSeconds\":[0-9.]+,\"nextSend\":\"(" + PROBE + "|"
              + HELD_BACK + ")\"")
          .doesNotContain("nextProbe");
      String ready = client.send(HttpRequest.newBuilder(URI.create(base + "/health/ready")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(ready).contains("\"status\":\"DEGRADED\"", "\"pausedDestinations\":[\"legacy\",\"orders\"]",
          "\"nextSendAt\":", "\"nextSend\":\"nothing until an operator resumes it\"");
    }
  }
}
