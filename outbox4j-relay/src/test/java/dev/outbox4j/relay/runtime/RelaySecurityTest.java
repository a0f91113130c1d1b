package dev.outbox4j.relay.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.OutboxException;
import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayAssembly;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.spi.TlsSettings;
import dev.outbox4j.testkit.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable relay's own security settings, end to end on PostgreSQL: its server over HTTPS from a PEM key pair,
 * secrets read from files ({@code <key>-file} and {@code <NAME>_FILE}) and shown nowhere, and JDBC driver properties
 * ({@code database.properties.*}) reaching the driver.
 */
class RelaySecurityTest {
  private static final String ADMIN_TOKEN = "admin-T0ken-from-a-file-123";
  private static final String WEBHOOK_PASSWORD = "w3bhook-Secret-pw";

  @TempDir Path dir;

  @Test
  void serves_https_from_a_pem_key_pair_reads_secrets_from_files_and_shows_none_of_them() throws Exception {
    TestCertificates certificates = TestCertificates.createIn(dir.resolve("certs"));
    Path tokenFile = Files.writeString(dir.resolve("admin-token"), ADMIN_TOKEN + "\n");
    Path passwordFile = Files.writeString(dir.resolve("webhook-password"), WEBHOOK_PASSWORD + "\n");
    String url = RunDatabases.postgresUrl();
    try (RecordingWebhook webhook = new RecordingWebhook(Duration.ZERO)) {
      Path file = dir.resolve("relay.yaml");
      Files.writeString(file, String.join("\n",
          "database:",
          "  url: '" + url + "'",
          "  table-prefix: sec_",
          "  migrate: true",
          "server:",
          "  port: 0",
          "  tls:",
          "    certificate: " + certificates.file("server.pem"),
          "    key: " + certificates.file("server-key.pem"),
          "transports:",
          "  webhooks:",
          "    type: http",
          "    endpoint:",
          "      orders: " + webhook.url("/orders"),
          "    auth:",
          "      orders:",
          "        username: relay",
          "        password-file: " + passwordFile,
          "destinations:",
          "  orders: webhooks",
          ""));
      RelayConfig config = ConfigReader.read(file, List.of(),
          Map.of("OUTBOX4J_SERVER_ADMIN_TOKEN_FILE", tokenFile.toString()));
      assertThat(config.server().adminToken()).isEqualTo(ADMIN_TOKEN);
      assertThat(config.transports().get("webhooks").properties()).containsEntry("auth.orders.password",
          WEBHOOK_PASSWORD);
      assertThat(config.toString()).doesNotContain(ADMIN_TOKEN).doesNotContain(WEBHOOK_PASSWORD);

      try (RelayRuntime runtime = RelayRuntime.start(config)) {
        PlainSqlRows.insert(url, "sec_outbox", "orders", 1, 5, 0, false);
        await().atMost(Duration.ofSeconds(30)).until(() -> webhook.received().size() >= 5);

        assertThat(runtime.baseUrl()).startsWith("https://");
        HttpClient trusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .sslContext(TlsSettings.builder().withTrustStore(certificates.file("ca.pem"), null).build()
                .sslContext())
            .build();
        HttpResponse<String> health = get(trusting, runtime.baseUrl() + "/health/ready");
        assertThat(health.statusCode()).isEqualTo(200);
        HttpResponse<String> metrics = get(trusting, runtime.baseUrl() + "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("outbox4j_").doesNotContain(ADMIN_TOKEN).doesNotContain(WEBHOOK_PASSWORD);
        assertThat(runtime.config().toString()).doesNotContain(ADMIN_TOKEN).doesNotContain(WEBHOOK_PASSWORD);

        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String plainUrl = runtime.baseUrl().replace("https://", "http://") + "/health/live";
        assertThatThrownBy(() -> get(plain, plainUrl)).as("no plain HTTP beside HTTPS")
            .isInstanceOf(IOException.class);
      }
    }
  }

  @Test
  void a_secret_file_that_cannot_be_read_stops_the_start_naming_the_key_and_the_path() throws Exception {
    Path file = Files.writeString(dir.resolve("relay.yaml"), "database:\n  url: jdbc:h2:mem:x\n"
        + "  password-file: " + dir.resolve("missing") + "\n");
    assertThatThrownBy(() -> ConfigReader.read(file, List.of(), Map.of()))
        .hasMessageContaining("database.password-file").hasMessageContaining(dir.resolve("missing").toString());
    Path both = Files.writeString(dir.resolve("both.yaml"), "database:\n  url: jdbc:h2:mem:x\n  password: a\n"
        + "  password-file: " + file + "\n");
    assertThatThrownBy(() -> ConfigReader.read(both, List.of(), Map.of()))
        .hasMessageContaining("database.password-file").hasMessageContaining("exclude each other");
  }

  @Test
  void driver_properties_reach_the_jdbc_driver() throws Exception {
    String url = RunDatabases.postgresUrl();
    Path file = Files.writeString(dir.resolve("relay.yaml"), String.join("\n",
        "database:",
        "  url: '" + url + "'",
        "  properties:",
        "    ApplicationName: outbox4j-security-test",
        "    sslmode: disable",
        ""));
    RelayConfig config = ConfigReader.read(file, List.of(), Map.of());
    try (HikariDataSource pool = RelayAssembly.dataSource(config.database(), "security-test");
        Connection connection = pool.getConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT current_setting('application_name')")) {
      assertThat(result.next()).isTrue();
      assertThat(result.getString(1)).isEqualTo("outbox4j-security-test");
    }
    // this machine's PostgreSQL has TLS off: a driver told to require it refuses to connect, which proves it was told
    // (a property named in the file has an environment name too)
    RelayConfig requiring = ConfigReader.read(file, List.of(),
        Map.of("OUTBOX4J_DATABASE_PROPERTIES_SSLMODE", "require"));
    assertThat(requiring.database().driverProperties()).containsEntry("sslmode", "require");
    assertThatThrownBy(() -> RelayAssembly.dataSource(requiring.database(), "security-test").close())
        .isInstanceOf(OutboxException.class).hasMessageContaining("SSL");
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void a_traditional_rsa_key_for_the_server_is_refused_naming_server_tls_key_and_the_conversion() throws Exception {
    TestCertificates certificates = TestCertificates.createIn(dir.resolve("certs"));
    String pkcs8 = Files.readString(certificates.file("server-key.pem"));
    Path traditional = Files.writeString(dir.resolve("server-rsa.pem"), pkcs8
        .replace("BEGIN PRIVATE KEY", "BEGIN RSA PRIVATE KEY").replace("END PRIVATE KEY", "END RSA PRIVATE KEY"));
    Path file = Files.writeString(dir.resolve("tls.yaml"), "database:\n  url: jdbc:h2:mem:x\nserver:\n  tls:\n"
        + "    certificate: " + certificates.file("server.pem") + "\n    key: " + traditional + "\n");
    assertThatThrownBy(() -> ConfigReader.read(file, List.of(), Map.of()))
        .hasMessageContaining("server.tls.key").hasMessageNotContaining("server.tls.certificate")
        .hasMessageNotContaining("client key")
        .hasMessageContaining("-----BEGIN RSA PRIVATE KEY-----")
        .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt -in " + traditional);
  }
}
