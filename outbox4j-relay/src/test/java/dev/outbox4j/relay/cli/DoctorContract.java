package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code doctor} command through the real command line (in-process) against a real database: a clean database,
 * an unmigrated one, one that cannot be reached, the JSON form. Subclassed per database, with each database's own
 * settings cases.
 */
abstract class DoctorContract {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  protected HikariDataSource pool;
  protected String prefix;

  /** @return a JDBC URL of a database this test may create tables in */
  protected abstract String url();

  /** @return a URL of the same kind naming a database that cannot be reached */
  protected abstract String unreachableUrl();

  @BeforeEach
  void migrate() {
    prefix = "doc" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20)) + "_";
    pool = pool(url());
    JdbcOutboxStore.builder(pool).withTablePrefix(prefix).build().migrate();
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  protected static HikariDataSource pool(String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(3);
    return new HikariDataSource(config);
  }

  protected Path config(String url, String tablePrefix, String extra) throws IOException {
    Path file = dir.resolve("relay-" + UUID.randomUUID() + ".yaml");
    String quoted = "'" + url.replace("'", "''") + "'";
    Files.writeString(file, "database:\n  url: " + quoted + "\n  table-prefix: " + tablePrefix + "\n" + extra,
        StandardCharsets.UTF_8);
    return file;
  }

  protected CliRun doctor(String url, String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of("doctor", "--config", config(url, prefix, "").toString()));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(String[]::new));
  }

  /** @return the findings of the JSON form, as check → level lines ("isolation INFO") */
  protected static List<String> levels(CliRun run) throws IOException {
    JsonNode body = JSON.readTree(run.out());
    List<String> lines = new ArrayList<>();
    body.get("findings").forEach(f -> lines.add(f.get("check").asText() + " " + f.get("level").asText()));
    return lines;
  }

  protected static JsonNode finding(CliRun run, String check, String level) throws IOException {
    for (JsonNode f : JSON.readTree(run.out()).get("findings")) {
      if (f.get("check").asText().equals(check) && f.get("level").asText().equals(level)) {
        return f;
      }
    }
    throw new AssertionError("no " + level + " finding of " + check + " in " + run.out());
  }

  @Test
  void a_clean_database_has_nothing_unsafe_or_slow_and_the_command_exits_0() throws IOException {
    CliRun run = doctor(url());

    assertThat(run.code()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("LEVEL", "CHECK", "FOUND / FIX", "isolation", "commit-durability", "pooler",
        "sequence-cache", "idle-timeout", "clock-skew", "schema", "tls", "\n0 unsafe, 0 slow");
    assertThat(run.out().lines()).noneMatch(line -> line.startsWith("UNSAFE") || line.startsWith("SLOW"));
  }

  @Test
  void the_json_form_parses_and_carries_every_finding_with_its_level_and_fix() throws IOException {
    CliRun run = doctor(url(), "--json");

    assertThat(run.code()).as(run.err()).isZero();
    JsonNode body = JSON.readTree(run.out());
    assertThat(body.get("unsafe").asBoolean()).isFalse();
    assertThat(body.get("leaseSeconds").asDouble()).isEqualTo(30.0);
    assertThat(body.get("url").asText()).doesNotContain("?", "password");
    assertThat(body.get("findings")).isNotEmpty().allSatisfy(f -> {
      assertThat(f.get("level").asText()).isIn("UNSAFE", "SLOW", "INFO", "OK");
      assertThat(f.has("check") && f.has("found") && f.has("fix")).isTrue();
    });
    assertThat(levels(run)).contains("schema OK", "sequence-cache OK", "idle-timeout OK", "pooler OK",
        "clock-skew OK");
  }

  @Test
  void tables_not_migrated_are_unsafe_and_the_command_exits_1() throws IOException {
    Path file = config(url(), "nomig" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20)) + "_", "");
    CliRun run = CliRun.of("doctor", "--config", file.toString(), "--json");

    assertThat(run.code()).as(run.out() + run.err()).isEqualTo(1);
    assertThat(finding(run, "schema", "UNSAFE").get("fix").asText()).contains("migrate");
  }

  @Test
  void a_database_that_cannot_be_reached_exits_2_without_showing_the_password() {
    CliRun run = CliRun.of("doctor", "--url", unreachableUrl());

    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).contains("cannot connect").doesNotContain("hunter2secret");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void tls_that_verifies_nothing_and_a_server_open_beyond_this_host_without_tls_are_unsafe_and_kafka_is_not_checked()
      throws IOException {
    Path file = config(url(), prefix, "server:\n  bind: 0.0.0.0\n"
        + "transports:\n"
        + "  bus:\n    type: nats\n    servers: opentls://nats.example:4222\n"
        + "  hooks:\n    type: http\n    signing-secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"
        + "    endpoint.partner: http://partner.example/in\n"
        + "  events:\n    type: kafka\n    bootstrap.servers: 127.0.0.1:9\n    transactions.enabled: true\n"
        + "destinations:\n  orders: bus\n  partner: hooks\n  ledger: events\n");
    CliRun run = CliRun.of("doctor", "--config", file.toString(), "--json");

    assertThat(run.code()).as(run.err()).isEqualTo(1);
    String tls = JSON.readTree(run.out()).get("findings").findValuesAsText("found").toString();
    assertThat(tls).contains("opentls://", "signed webhooks for 'partner' over plain http://",
        "listens on 0.0.0.0 without TLS").doesNotContain("whsec_");
    assertThat(finding(run, "kafka-progress-topic", "INFO").get("found").asText()).contains("transport 'events'",
        "not checked");
  }
}
