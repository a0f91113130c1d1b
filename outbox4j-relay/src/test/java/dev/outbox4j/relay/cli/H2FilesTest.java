package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class H2FilesTest {
  @TempDir Path dir;

  @Test
  void a_file_url_names_the_mv_db_file_with_or_without_file_prefix_and_settings() {
    Path base = dir.resolve("data/outbox").toAbsolutePath();
    Path file = dir.resolve("data/outbox.mv.db").toAbsolutePath();
    assertThat(H2Files.databaseFile("jdbc:h2:file:" + base)).contains(file);
    assertThat(H2Files.databaseFile("jdbc:h2:" + base + ";AUTO_SERVER=TRUE;PASSWORD=x")).contains(file);
    assertThat(H2Files.databaseFile("JDBC:H2:FILE:" + base)).contains(file);
    assertThat(H2Files.databaseFile("jdbc:h2:./data/outbox"))
        .contains(Path.of("data/outbox.mv.db").toAbsolutePath().normalize());
    assertThat(H2Files.databaseFile("jdbc:h2:~/outbox"))
        .contains(Path.of(System.getProperty("user.home"), "outbox.mv.db").toAbsolutePath().normalize());
  }

  @Test
  void urls_that_are_not_plain_files_are_not_checked() {
    assertThat(H2Files.databaseFile("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1")).isEmpty();
    assertThat(H2Files.databaseFile("jdbc:h2:tcp://localhost/~/outbox")).isEmpty();
    assertThat(H2Files.databaseFile("jdbc:h2:ssl://localhost/~/outbox")).isEmpty();
    assertThat(H2Files.databaseFile("jdbc:h2:zip:~/db.zip!/outbox")).isEmpty();
    assertThat(H2Files.databaseFile("jdbc:postgresql://127.0.0.1:5432/outbox")).isEmpty();
    assertThat(H2Files.missing("jdbc:h2:mem:")).isEmpty();
  }

  @Test
  void only_a_file_that_does_not_exist_is_missing() throws IOException {
    Path base = dir.resolve("outbox").toAbsolutePath();
    assertThat(H2Files.missing("jdbc:h2:file:" + base)).contains(dir.resolve("outbox.mv.db").toAbsolutePath());
    Files.createFile(dir.resolve("outbox.mv.db"));
    assertThat(H2Files.missing("jdbc:h2:file:" + base)).isEmpty();
    Path legacy = dir.resolve("legacy").toAbsolutePath();
    Files.createFile(dir.resolve("legacy.h2.db"));
    assertThat(H2Files.missing("jdbc:h2:" + legacy)).isEmpty();
  }
}
