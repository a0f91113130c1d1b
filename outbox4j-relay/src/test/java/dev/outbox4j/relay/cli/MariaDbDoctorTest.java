package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.testing.RunDatabases;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * {@code doctor} on MariaDB (this test JVM's own database). Server-wide settings are not the test's to change, so the
 * settings cases set session variables through the URL: what the relay's connections run with is what the doctor reads.
 */
class MariaDbDoctorTest extends DoctorContract {
  @Override
  protected String url() {
    return RunDatabases.mariadbUrl();
  }

  @Override
  protected String unreachableUrl() {
    return "jdbc:mariadb://127.0.0.1:9/absent?user=root&password=hunter2secret&connectTimeout=2000";
  }

  @Test
  void a_serializable_session_is_informational_and_an_idle_timeout_below_the_lease_is_slow() throws IOException {
    CliRun run = doctor(url() + "&sessionVariables=tx_isolation='SERIALIZABLE',idle_transaction_timeout=5", "--json");

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(finding(run, "isolation", "INFO").get("found").asText()).contains("SERIALIZABLE",
        "handled by the store");
    assertThat(finding(run, "idle-timeout", "SLOW").get("found").asText()).contains("idle_transaction_timeout = 5 s",
        "shorter than the lease (30000 ms)");
  }
}
