package dev.outbox4j.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.jdbc.testing.RunDatabases;
import dev.outbox4j.spi.Claim;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.h2.tools.RunScript;
import org.junit.jupiter.api.Test;

/**
 * docs/schema.md's SQL examples run as pasted: every {@code ```sql} block is marked either {@code <!-- runs as pasted:
 * <dialects> -->} or {@code <!-- sketch: ... -->}, and each runnable block is fed, in document order, to the
 * database's own client ({@code psql}, {@code mariadb}; H2 has no client here, so its {@link RunScript}) against fresh
 * tables with the default names. Then the rows the examples wrote are read back through the store: readable,
 * claimable, nothing quarantined as unreadable.
 */
class SchemaDocSqlTest {
  private static final Path SCHEMA_MD = Path.of("..", "docs", "schema.md");
  private static final Pattern MARKER = Pattern.compile("<!-- (runs as pasted: ([a-z0-9, ]+)|sketch: .*) -->");

  /** A runnable block and the dialects it is for. */
  record Block(int line, List<String> dialects, String sql) {}

  @Test
  void every_sql_block_says_whether_it_runs_as_pasted_or_is_a_sketch() throws IOException {
    List<String> lines = Files.readAllLines(SCHEMA_MD, StandardCharsets.UTF_8);
    List<Integer> unmarked = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals("```sql") && (i == 0 || !MARKER.matcher(lines.get(i - 1).strip()).matches())) {
        unmarked.add(i + 1);
      }
    }
    assertThat(unmarked).as("lines of docs/schema.md with a ```sql block but no marker on the line before").isEmpty();
    assertThat(blocks()).extracting(Block::dialects).flatExtracting(d -> d)
        .contains("postgresql", "mariadb", "h2");
  }

  @Test
  void the_postgresql_examples_run_in_psql() throws Exception {
    DataSource pool = freshDefaultTables(TestDatabase.POSTGRES);
    run(List.of("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-U", "postgres", "-d",
        RunDatabases.name()), script("postgresql"));
    JdbcOutboxStore store = JdbcOutboxStore.builder(pool).build();
    assertReadable(store, 2);
    assertThat(store.hasNotifyTrigger()).as("the notify trigger block installed it").isTrue();
  }

  @Test
  void the_notify_trigger_block_is_what_install_notify_trigger_runs() throws IOException {
    String documented = blocks().stream().filter(b -> b.sql().contains("outbox4j_tg_outbox_notify"))
        .map(Block::sql).findFirst().orElseThrow().strip();
    String installed = String.join(";\n",
        new PostgresNotifyTrigger(TestDatabase.POSTGRES.pool("unused_"), TableNames.defaults()).installStatements())
        + ";";
    assertThat(documented).isEqualTo(installed);
  }

  @Test
  void the_mariadb_examples_run_in_the_mariadb_client() throws Exception {
    DataSource pool = freshDefaultTables(TestDatabase.MARIADB);
    run(List.of("mariadb", "-h", "127.0.0.1", "-u", "root", RunDatabases.name()), script("mariadb"));
    assertReadable(JdbcOutboxStore.builder(pool).build(), 2);
  }

  @Test
  void the_h2_examples_run_as_a_script() throws Exception {
    DataSource pool = freshDefaultTables(TestDatabase.H2);
    try (Connection connection = pool.getConnection()) {
      connection.setAutoCommit(true);
      RunScript.execute(connection, new StringReader(script("h2")));
    }
    assertReadable(JdbcOutboxStore.builder(pool).build(), 1);
  }

  /** @return the shared pool of the default prefix, its tables dropped and migrated afresh */
  private static DataSource freshDefaultTables(TestDatabase database) {
    DataSource pool = database.pool(TableNames.DEFAULT_PREFIX);
    TestDatabase.truncate(pool, TableNames.defaults());
    return pool;
  }

  private static void assertReadable(JdbcOutboxStore store, int rows) {
    List<Claim> claimed = store.claim(10, Instant.now(), Duration.ofSeconds(30));
    assertThat(claimed).hasSize(rows).allSatisfy(claim -> assertThat(claim.entry().message().destination())
        .isEqualTo("orders"));
    assertThat(store.stats(Instant.now()).quarantined()).isZero();
  }

  private static String script(String dialect) throws IOException {
    return blocks().stream().filter(b -> b.dialects().contains(dialect)).map(Block::sql)
        .collect(Collectors.joining("\n"));
  }

  private static List<Block> blocks() throws IOException {
    List<String> lines = Files.readAllLines(SCHEMA_MD, StandardCharsets.UTF_8);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i + 1 < lines.size(); i++) {
      Matcher marker = MARKER.matcher(lines.get(i).strip());
      if (marker.matches() && marker.group(2) != null && lines.get(i + 1).strip().equals("```sql")) {
        StringBuilder sql = new StringBuilder();
        int j = i + 2;
        for (; !lines.get(j).strip().equals("```"); j++) {
          sql.append(lines.get(j)).append('\n');
        }
        List<String> dialects = List.of(marker.group(2).toLowerCase(Locale.ROOT).split("\\s*,\\s*"));
        blocks.add(new Block(i + 1, dialects, sql.toString()));
        i = j;
      }
    }
    return blocks;
  }

  /** Feeds {@code script} to a database client on its standard input; fails with its output unless it exits 0. */
  private static void run(List<String> command, String script) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().write(script.getBytes(StandardCharsets.UTF_8));
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s finished", command.get(0)).isTrue();
    assertThat(process.exitValue()).as("%s exit code; it printed:%n%s%nfor the script:%n%s", command.get(0), output,
        script).isZero();
  }
}
