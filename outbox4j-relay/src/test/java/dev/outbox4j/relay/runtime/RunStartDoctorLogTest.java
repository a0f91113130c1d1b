package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.doctor.RelayDoctor;
import dev.outbox4j.relay.logging.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The doctor's findings that are not OK are logged once, one line each, when a relay starts. */
class RunStartDoctorLogTest {
  @TempDir Path dir;

  @Test
  void a_relay_logs_each_finding_that_is_not_ok_once_at_start_and_starts_all_the_same() throws IOException {
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, "database:\n  url: 'jdbc:h2:file:" + dir.resolve("db") + "'\n  migrate: true\n"
        + "server:\n  port: 0\n"
        + "transports:\n  hooks:\n    type: http\n    signing-secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"
        + "    endpoint.partner: http://partner.example/in\n"
        + "destinations:\n  partner: hooks\n");
    List<String> lines;
    try (LogCapture capture = LogCapture.of(RelayDoctor.class.getName());
        RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
      assertThat(runtime.port()).isPositive();
      lines = capture.lines();
    }
    assertThat(lines).singleElement().asString().startsWith("WARN doctor UNSAFE tls: transport 'hooks' sends signed"
        + " webhooks for 'partner' over plain http:// to partner.example").contains("; fix: an https:// endpoint")
        .doesNotContain("whsec_");
  }
}
