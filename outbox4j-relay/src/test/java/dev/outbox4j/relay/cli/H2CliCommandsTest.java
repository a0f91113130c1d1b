package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The operator commands on an embedded H2 file database. */
class H2CliCommandsTest extends CliCommandsContract {
  @Override
  protected String url() {
    return "jdbc:h2:file:" + dir.resolve("cli").toAbsolutePath();
  }

  @Override
  protected String missingDatabaseUrl() {
    return "jdbc:h2:file:" + dir.resolve("absent/db").toAbsolutePath() + ";IFEXISTS=TRUE;PASSWORD=hunter2secret";
  }

  @Test
  void an_h2_url_to_a_file_that_does_not_exist_is_refused_naming_the_file_and_migrate_creates_it() {
    Path typo = dir.resolve("typo/outbox").toAbsolutePath();
    Path file = dir.resolve("typo/outbox.mv.db").toAbsolutePath();
    for (String url : new String[] {"jdbc:h2:file:" + typo, "jdbc:h2:" + typo + ";AUTO_SERVER=TRUE"}) {
      for (String command : new String[] {"status", "quarantined", "purge"}) {
        CliRun run = CliRun.of(command, "--url", url);
        assertThat(run.code()).as(command + " " + url + ": " + run.err()).isEqualTo(ExitCodes.FAILED);
        assertThat(run.err()).contains("the H2 database file " + file + " does not exist", "--url", "'migrate'");
      }
      CliRun discard = CliRun.of("discard", "--all", "--yes", "--url", url);
      assertThat(discard.code()).isEqualTo(ExitCodes.FAILED);
    }
    assertThat(Files.exists(file)).isFalse();
    assertThat(Files.exists(typo.getParent())).isFalse();

    CliRun migrate = CliRun.of("migrate", "--url", "jdbc:h2:file:" + typo);
    assertThat(migrate.code()).as(migrate.err()).isZero();
    assertThat(Files.exists(file)).isTrue();
    CliRun status = CliRun.of("status", "--url", "jdbc:h2:" + typo);
    assertThat(status.code()).as(status.err()).isZero();
  }
}
