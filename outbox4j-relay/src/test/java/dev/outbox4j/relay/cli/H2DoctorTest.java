package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** {@code doctor} on an H2 file database. */
class H2DoctorTest extends DoctorContract {
  @Override
  protected String url() {
    return "jdbc:h2:file:" + dir.resolve("doctor") + ";DB_CLOSE_DELAY=-1";
  }

  @Override
  protected String unreachableUrl() {
    return "jdbc:h2:tcp://127.0.0.1:9/doctor;PASSWORD=hunter2secret";
  }

  @Test
  void an_in_memory_database_is_reported_as_losing_everything_with_its_process() throws IOException {
    String memory = "jdbc:h2:mem:doctor" + prefix + ";DB_CLOSE_DELAY=-1";
    try (var keep = pool(memory)) {
      dev.outbox4j.jdbc.JdbcOutboxStore.builder(keep).withTablePrefix(prefix).build().migrate();
      CliRun run = doctor(memory, "--json");

      assertThat(run.code()).as(run.err()).isZero();
      assertThat(finding(run, "commit-durability", "INFO").get("found").asText()).contains("in-memory");
    }
  }
}
