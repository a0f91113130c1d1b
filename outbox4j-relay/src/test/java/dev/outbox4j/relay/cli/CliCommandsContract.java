package dev.outbox4j.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OutboxStats;
import dev.outbox4j.spi.Retention;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operator command against one database, through the real command line (in-process), including bad
 * configuration files. Subclassed per database.
 */
abstract class CliCommandsContract {
  @TempDir Path dir;

  private HikariDataSource pool;
  private JdbcOutboxStore store;
  private String prefix;

  /** @return a JDBC URL of a database this test may create tables in */
  protected abstract String url();

  /** @return a URL of the same kind naming a database that does not exist, carrying the password "hunter2secret" */
  protected abstract String missingDatabaseUrl();

  @BeforeEach
  void openStore() {
    prefix = "cli" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20)) + "_";
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url());
    config.setMaximumPoolSize(4);
    pool = new HikariDataSource(config);
    store = JdbcOutboxStore.builder(pool).withTablePrefix(prefix).withRetention(Retention.keepFor(Duration.ofMillis(1)))
        .build();
  }

  @AfterEach
  void closeStore() {
    pool.close();
  }

  private Path config(String extra) throws IOException {
    Path file = dir.resolve("relay-" + UUID.randomUUID() + ".yaml");
    Files.writeString(file, "database:\n  url: '" + url() + "'\n  table-prefix: " + prefix + "\n" + extra,
        StandardCharsets.UTF_8);
    return file;
  }

  private CliRun cli(String command, Path config, String... more) {
    String[] args = new String[more.length + 3];
    args[0] = command;
    args[1] = "--config";
    args[2] = config.toString();
    System.arraycopy(more, 0, args, 3, more.length);
    return CliRun.of(args);
  }

  private OutboxEntry quarantinedEntry(String key) {
    OutboxEntry entry = store.enqueue(message("legacy-erp", key));
    Instant now = Instant.now();
    Claim claim = store.claim(100, now, Duration.ofMillis(1)).stream()
        .filter(c -> c.entry().id().equals(entry.id())).findFirst().orElseThrow();
    assertThat(store.quarantine(claim, QuarantineReason.permanentFailure("refused by the test"))).isTrue();
    return store.find(entry.id()).orElseThrow();
  }

  private static Message message(String destination, String key) {
    return Message.builder().withDestination(destination).withOrderingKey(key)
        .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build();
  }

  private boolean tablesExist() throws SQLException {
    try (Connection connection = pool.getConnection();
        ResultSet tables = connection.getMetaData().getTables(null, null, "%", null)) {
      while (tables.next()) {
        if (tables.getString("TABLE_NAME").toLowerCase(Locale.ROOT).startsWith(prefix)) {
          return true;
        }
      }
      return false;
    }
  }

  @Test
  final void every_command_prints_its_help_and_exits_0() {
    for (String command : List.of("demo", "run", "migrate", "status", "quarantined", "requeue", "discard", "purge",
        "park", "pause", "resume", "audit")) {
      CliRun run = CliRun.of(command, "--help");
      assertThat(run.code()).as(command).isZero();
      assertThat(run.out()).as(command).contains("Usage:", command);
    }
    CliRun root = CliRun.of("--help");
    assertThat(root.code()).isZero();
    assertThat(root.out()).contains("Exit codes:", "3", "wrong configuration", "quarantined");
    CliRun none = CliRun.of();
    assertThat(none.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err()).contains("a command is required", "Usage:");
  }

  @Test
  final void migrate_creates_the_tables_once_and_then_reports_them_up_to_date() throws Exception {
    Path config = config("");
    assertThat(tablesExist()).isFalse();
    CliRun first = cli("migrate", config);
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).containsPattern("applied [1-9][0-9]* migrations? to ");
    assertThat(tablesExist()).isTrue();
    CliRun second = cli("migrate", config);
    assertThat(second.code()).isZero();
    assertThat(second.out()).contains("up to date");
  }

  @Test
  final void status_prints_the_counts_the_store_reports() throws Exception {
    store.migrate();
    store.enqueue(message("orders", "order-1"));
    store.enqueue(message("orders", "order-2"));
    quarantinedEntry("invoice-1");
    OutboxStats stats = store.stats(Instant.now());
    CliRun json = cli("status", config(""), "--json");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(json.out()).contains("\"pending\":" + stats.pending(), "\"inFlight\":" + stats.inFlight(),
        "\"quarantined\":1");
    CliRun text = cli("status", config(""));
    assertThat(text.out()).contains("pending      " + stats.pending(), "quarantined  1", "prefix " + prefix);
  }

  @Test
  final void status_tells_waiting_from_blocked_overall_and_per_destination() throws Exception {
    store.migrate();
    quarantinedEntry("invoice-1"); // legacy-erp
    store.enqueue(message("legacy-erp", "invoice-1")); // blocked behind it
    store.enqueue(message("legacy-erp", "invoice-1"));
    store.enqueue(message("orders", "order-1")); // waiting

    CliRun text = cli("status", config(""));

    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out()).contains("pending      3 (waiting 1, blocked 2)", "waiting      1",
        "blocked      2 behind a quarantined or parked entry", "quarantined  1", "blocked for  ");
    assertThat(text.out()).containsPattern("(?m)^destination +waiting +blocked +in flight +quarantined +lag +blocked for$");
    assertThat(text.out()).containsPattern("(?m)^legacy-erp +0 +2 +0 +1 +- +[0-9.]+ s$");
    assertThat(text.out()).containsPattern("(?m)^orders +1 +0 +0 +0 +[0-9.]+ s +-$");
    CliRun json = cli("status", config(""), "--json");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(json.out()).contains("\"pending\":3,\"waiting\":1,\"blocked\":2,",
        "{\"destination\":\"legacy-erp\",\"waiting\":0,\"blocked\":2,\"inFlight\":0,\"quarantined\":1,",
        "{\"destination\":\"orders\",\"waiting\":1,\"blocked\":0,", "\"moreDestinations\":false");
  }

  @Test
  final void quarantined_lists_id_key_destination_attempts_and_reason() throws Exception {
    store.migrate();
    OutboxEntry entry = quarantinedEntry("invoice-7");
    CliRun run = cli("quarantined", config(""));
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains(entry.id().toString(), "invoice-7", "legacy-erp", "refused by the test",
        "showing 1 of 1 quarantined entry");
  }

  @Test
  final void requeue_puts_the_entry_back_in_line_and_exits_4_for_an_id_that_is_not_quarantined() throws Exception {
    store.migrate();
    OutboxEntry entry = quarantinedEntry("invoice-8");
    UUID unknown = UUID.randomUUID();
    CliRun run = cli("requeue", config(""), entry.id().toString(), unknown.toString());
    assertThat(run.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(run.out()).contains("requeued " + entry.id());
    assertThat(run.err()).contains("no quarantined entry " + unknown);
    OutboxEntry after = store.find(entry.id()).orElseThrow();
    assertThat(after.status()).isEqualTo(EntryStatus.PENDING);
    assertThat(after.attempts()).isZero();
  }

  @Test
  final void discard_deletes_the_quarantined_entry() throws Exception {
    store.migrate();
    OutboxEntry entry = quarantinedEntry("invoice-9");
    CliRun run = cli("discard", config(""), entry.id().toString());
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("discarded " + entry.id());
    assertThat(store.find(entry.id())).isEmpty();
  }

  @Test
  final void requeue_and_discard_act_on_a_selection_and_refuse_ids_mixed_with_one() throws Exception {
    store.migrate();
    OutboxEntry first = quarantinedEntry("tenant-1");
    OutboxEntry second = quarantinedEntry("tenant-2");
    OutboxEntry third = quarantinedEntry("tenant-3");

    CliRun oneKey = cli("requeue", config(""), "--key", "tenant-1");
    assertThat(oneKey.code()).as(oneKey.err()).isZero();
    assertThat(oneKey.out()).contains("requeued 1 entry");
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
    assertThat(store.find(second.id()).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);

    CliRun mixed = cli("discard", config(""), "--all", second.id().toString());
    assertThat(mixed.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(mixed.err()).contains("not both");
    CliRun neither = cli("discard", config(""));
    assertThat(neither.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(store.find(second.id())).isPresent();

    CliRun byKind = cli("discard", config(""), "--kind", "PERMANENT_FAILURE", "--destination", "legacy-erp", "--yes");
    assertThat(byKind.code()).as(byKind.err()).isZero();
    assertThat(byKind.out()).contains("2 entries waiting for an operator (quarantined or parked) for destination"
        + " 'legacy-erp' of kind PERMANENT_FAILURE", "discarded 2 entries");
    assertThat(store.find(second.id())).isEmpty();
    assertThat(store.find(third.id())).isEmpty();
    assertThat(store.find(first.id())).isPresent();

    CliRun none = cli("requeue", config(""), "--all");
    assertThat(none.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(none.out()).contains("0 entries waiting for an operator");
  }

  @Test
  final void pause_and_resume_a_destination_for_every_relay_and_status_lists_the_pause() throws Exception {
    store.migrate();
    Path config = config("");

    CliRun pause = cli("pause", config, "--destination", "webhooks", "--reason", "endpoint \"v2\" migrating",
        "--by", "alice");
    assertThat(pause.code()).as(pause.err()).isZero();
    assertThat(pause.out()).contains("paused destination 'webhooks'");
    assertThat(store.operatorPauses()).singleElement().satisfies(p -> {
      assertThat(p.pausedBy()).isEqualTo("alice");
      assertThat(p.reason()).isEqualTo("endpoint \"v2\" migrating");
    });
    CliRun again = cli("pause", config, "--destination", "webhooks");
    assertThat(again.code()).isZero();
    assertThat(again.out()).contains("already paused", "paused by alice");

    CliRun text = cli("status", config);
    assertThat(text.out()).contains("paused       webhooks  paused by alice: endpoint \"v2\" migrating");
    CliRun json = cli("status", config, "--json");
    assertThat(json.out()).contains("\"pausedDestinations\":[{\"destination\":\"webhooks\",\"pausedBy\":\"alice\"",
        "\"reason\":\"endpoint \\\"v2\\\" migrating\"}]");

    CliRun resume = cli("resume", config, "--destination", "webhooks");
    assertThat(resume.code()).as(resume.err()).isZero();
    assertThat(store.operatorPauses()).isEmpty();
    assertThat(cli("status", config).out()).contains("paused       none");
    CliRun notPaused = cli("resume", config, "--destination", "webhooks");
    assertThat(notPaused.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(notPaused.err()).contains("not paused");
    assertThat(cli("pause", config).code()).isEqualTo(ExitCodes.USAGE); // --destination is required
  }

  @Test
  final void park_and_discard_waiting_print_the_count_first_and_change_more_than_one_entry_only_with_yes()
      throws Exception {
    store.migrate();
    Path config = config("");
    OutboxEntry first = store.enqueue(message("webhooks", "hook-1"));
    OutboxEntry second = store.enqueue(message("webhooks", "hook-2"));
    OutboxEntry other = store.enqueue(message("orders", "order-1"));

    CliRun dryRun = cli("park", config, "--destination", "webhooks", "--dry-run");
    assertThat(dryRun.code()).as(dryRun.err()).isZero();
    assertThat(dryRun.out()).contains("2 waiting entries for destination 'webhooks'", "nothing was changed");
    CliRun unconfirmed = cli("park", config, "--destination", "webhooks");
    assertThat(unconfirmed.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(unconfirmed.out()).contains("2 waiting entries");
    assertThat(unconfirmed.err()).contains("add --yes");
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);

    CliRun oneKey = cli("park", config, "--key", "hook-1");
    assertThat(oneKey.code()).as(oneKey.err()).isZero();
    assertThat(oneKey.out()).contains("1 waiting entry of key 'hook-1'", "parked 1 entry");
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
    CliRun listed = cli("quarantined", config);
    assertThat(listed.out()).as("a parked entry's kind reads PARKED, as its group's does")
        .containsPattern(first.id() + " +\\d+ +hook-1 +webhooks +0 +PARKED ");

    CliRun discard = cli("discard", config, "--waiting", "--destination", "webhooks", "--yes");
    assertThat(discard.code()).as(discard.err()).isZero();
    assertThat(discard.out()).contains("1 waiting entry", "discarded 1 entry");
    assertThat(store.find(second.id())).isEmpty();
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.PARKED); // not waiting
    assertThat(store.find(other.id()).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);

    assertThat(cli("discard", config, "--waiting", "--destination", "webhooks", "--yes").code())
        .isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(cli("park", config).code()).isEqualTo(ExitCodes.USAGE);
    assertThat(cli("discard", config, "--waiting", "--all").code()).isEqualTo(ExitCodes.USAGE);
    CliRun dryDiscard = cli("discard", config, "--all", "--dry-run");
    assertThat(dryDiscard.code()).as(dryDiscard.err()).isZero();
    assertThat(dryDiscard.out()).contains("1 entry waiting for an operator", "nothing was changed");
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.PARKED);
  }

  @Test
  final void purge_deletes_delivered_entries_past_their_retention_and_nothing_else() throws Exception {
    store.migrate();
    OutboxEntry delivered = store.enqueue(message("orders", "order-3"));
    List<Claim> claims = store.claim(10, Instant.now(), Duration.ofSeconds(30));
    assertThat(store.markDelivered(claims, Instant.now().minusSeconds(60))).isEmpty();
    OutboxEntry waiting = store.enqueue(message("orders", "order-4"));
    CliRun run = cli("purge", config("  keep-delivered: 1s\n"));
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("purged 1 delivered entry");
    assertThat(store.find(delivered.id())).isEmpty();
    assertThat(store.find(waiting.id())).isPresent();
    CliRun deleting = cli("purge", config(""));
    assertThat(deleting.out()).contains("nothing to purge");
  }

  @Test
  final void every_change_an_operator_command_makes_is_in_the_audit_log_and_audit_lists_it_newest_first()
      throws Exception {
    store.migrate();
    Path config = config("  keep-delivered: 1s\n");
    OutboxEntry requeued = quarantinedEntry("audit-1");
    quarantinedEntry("audit-2");
    store.enqueue(message("webhooks", "hook-1"));
    store.enqueue(message("webhooks", "hook-2"));

    assertThat(cli("requeue", config, requeued.id().toString()).code()).isZero();
    assertThat(cli("discard", config, "--destination", "legacy-erp", "--kind", "PERMANENT_FAILURE").code()).isZero();
    assertThat(cli("park", config, "--destination", "webhooks", "--dry-run").code()).isZero(); // not a change
    assertThat(cli("park", config, "--destination", "webhooks", "--yes").code()).isZero();
    assertThat(cli("pause", config, "--destination", "webhooks", "--by", "alice", "--reason", "migrating").code())
        .isZero();
    assertThat(cli("pause", config, "--destination", "webhooks").code()).isZero(); // already paused: no change
    assertThat(cli("resume", config, "--destination", "webhooks").code()).isZero();
    assertThat(cli("requeue", config, "--all").code()).isZero(); // the two parked entries
    assertThat(cli("discard", config, "--key", "nobody").code()).isEqualTo(ExitCodes.NOT_FOUND); // matched nothing

    assertThat(store.operatorActions(100)).extracting(a -> a.action() + " " + a.entries())
        .containsExactly("requeue 2", "resume 0", "pause 0", "park 2", "discard 1", "requeue 1");
    assertThat(store.operatorActions(100)).allSatisfy(a -> assertThat(a.actor()).isEqualTo("cli"));
    assertThat(store.operatorActions(100).get(5).target()).isEqualTo("entry " + requeued.id());
    assertThat(store.operatorActions(100).get(4).target())
        .isEqualTo("entries waiting for an operator: destination 'legacy-erp', kind PERMANENT_FAILURE");
    assertThat(store.operatorActions(100).get(3).target()).isEqualTo("waiting entries for destination 'webhooks'");
    assertThat(store.operatorActions(100).get(2).detail()).isEqualTo("by alice: migrating");

    CliRun audit = cli("audit", config, "--limit", "2");
    assertThat(audit.code()).as(audit.err()).isZero();
    assertThat(audit.out()).contains("WHO", "WHAT", "ENTRIES")
        .contains("cli               requeue                2  entries waiting for an operator: every entry")
        .contains("cli               resume                 0  destination 'webhooks'")
        .contains("2 operator actions shown, newest first")
        .doesNotContain("pause ");
    assertThat(cli("audit", config, "--limit", "0").code()).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  final void a_bad_configuration_file_is_named_with_key_and_line_exits_3_and_changes_nothing() throws Exception {
    store.migrate();
    OutboxEntry entry = quarantinedEntry("invoice-10");
    String id = entry.id().toString();
    Path unknownKey = config("relay:\n  batch-sise: 50\n");
    Path wrongType = config("relay:\n  batch-size: lots\n");
    Path noDatabase = dir.resolve("no-database.yaml");
    Files.writeString(noDatabase, "relay:\n  batch-size: 50\n");
    for (String[] command : List.of(new String[] {"migrate"}, new String[] {"status"},
        new String[] {"quarantined"}, new String[] {"requeue", id}, new String[] {"discard", id},
        new String[] {"purge"}, new String[] {"run"})) {
      String name = command[0];
      String[] more = java.util.Arrays.copyOfRange(command, 1, command.length);
      CliRun unknown = cli(name, unknownKey, more);
      assertThat(unknown.code()).as(name + ": " + unknown.err()).isEqualTo(ExitCodes.CONFIG);
      assertThat(unknown.err()).contains(unknownKey.toString() + " line 5", "'relay.batch-sise' is not a known key",
          "relay.batch-size", "nothing was changed");
      CliRun wrong = cli(name, wrongType, more);
      assertThat(wrong.code()).as(name).isEqualTo(ExitCodes.CONFIG);
      assertThat(wrong.err()).contains(wrongType.toString() + " line 5",
          "'relay.batch-size' must be an integer from 1 to 10000, was 'lots'");
      CliRun missing = cli(name, noDatabase, more);
      assertThat(missing.code()).as(name).isEqualTo(ExitCodes.CONFIG);
      assertThat(missing.err()).contains(noDatabase.toString(), "'database.url' is required",
          "OUTBOX4J_DATABASE_URL");
    }
    OutboxEntry after = store.find(entry.id()).orElseThrow();
    assertThat(after.status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(after.version()).isEqualTo(entry.version());
  }

  @Test
  final void a_missing_configuration_file_and_a_malformed_id_are_refused_before_any_change() throws Exception {
    store.migrate();
    OutboxEntry entry = quarantinedEntry("invoice-11");
    CliRun noFile = CliRun.of("requeue", "--config", dir.resolve("absent.yaml").toString(), entry.id().toString());
    assertThat(noFile.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(noFile.err()).contains("absent.yaml: the configuration file does not exist");
    CliRun badId = cli("discard", config(""), "not-a-uuid");
    assertThat(badId.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badId.err()).contains("not an entry id: 'not-a-uuid'");
    CliRun unknownOption = CliRun.of("status", "--colour");
    assertThat(unknownOption.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(store.find(entry.id()).orElseThrow().version()).isEqualTo(entry.version());
  }

  @Test
  final void an_unreachable_database_fails_with_exit_1_and_never_prints_the_password() {
    CliRun run = CliRun.of("status", "--url", missingDatabaseUrl());
    assertThat(run.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.err()).startsWith("error: cannot connect to the database");
    assertThat(run.err() + run.out()).doesNotContain("hunter2secret");
  }

  @Test
  final void quarantined_shows_how_many_of_the_total_it_lists_and_where_the_next_page_starts() throws Exception {
    store.migrate();
    OutboxEntry first = quarantinedEntry("page-1");
    OutboxEntry second = quarantinedEntry("page-2");
    quarantinedEntry("page-3");
    CliRun page = cli("quarantined", config(""), "--limit", "2");
    assertThat(page.code()).as(page.err()).isZero();
    assertThat(page.out()).contains(first.id().toString(), second.id().toString(),
        "showing 2 of 3 quarantined entries; next page: --after " + second.sequence());
    CliRun next = cli("quarantined", config(""), "--limit", "2", "--after", Long.toString(second.sequence()));
    assertThat(next.out()).contains("showing 1 of 3 quarantined entries (after sequence " + second.sequence() + ")")
        .doesNotContain(first.id().toString());
  }

  @Test
  final void discarding_more_than_one_entry_needs_yes_and_a_dry_run_counts_without_changing_anything()
      throws Exception {
    store.migrate();
    Path config = config("");
    OutboxEntry first = quarantinedEntry("bulk-1");
    OutboxEntry second = quarantinedEntry("bulk-2");

    CliRun unconfirmed = cli("discard", config, "--all");
    assertThat(unconfirmed.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(unconfirmed.out()).contains("2 entries waiting for an operator (quarantined or parked)");
    assertThat(unconfirmed.err()).contains("add --yes to discard 2 entries", "nothing was changed");
    CliRun twoIds = cli("discard", config, first.id().toString(), second.id().toString());
    assertThat(twoIds.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(twoIds.err()).contains("add --yes");
    CliRun dryRun = cli("discard", config, "--reason", "refused by", "--dry-run");
    assertThat(dryRun.code()).as(dryRun.err()).isZero();
    assertThat(dryRun.out()).contains("2 entries waiting for an operator (quarantined or parked) whose reason contains"
        + " 'refused by'", "dry run: nothing was changed");
    CliRun dryRequeue = cli("requeue", config, "--key", "bulk-1", "--dry-run");
    assertThat(dryRequeue.out()).contains("1 entry waiting for an operator (quarantined or parked) of key 'bulk-1'",
        "dry run: nothing was changed");
    CliRun dryIds = cli("discard", config, first.id().toString(), UUID.randomUUID().toString(), "--dry-run");
    assertThat(dryIds.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(dryIds.out()).contains("would discard " + first.id(), "dry run: nothing was changed");
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);
    assertThat(store.find(second.id()).orElseThrow().status()).isEqualTo(EntryStatus.QUARANTINED);

    CliRun requeue = cli("requeue", config, "--all"); // not destructive: no confirmation
    assertThat(requeue.code()).as(requeue.err()).isZero();
    assertThat(requeue.out()).contains("requeued 2 entries");
    OutboxEntry third = quarantinedEntry("bulk-3");
    OutboxEntry fourth = quarantinedEntry("bulk-4");
    CliRun confirmed = cli("discard", config, "--destination", "legacy-erp", "--yes");
    assertThat(confirmed.code()).as(confirmed.err()).isZero();
    assertThat(confirmed.out()).contains("discarded 2 entries");
    assertThat(store.find(third.id())).isEmpty();
    assertThat(store.find(fourth.id())).isEmpty();
    assertThat(store.find(first.id()).orElseThrow().status()).isEqualTo(EntryStatus.PENDING);
  }

  @Test
  final void without_url_or_configuration_the_error_names_the_options_that_fix_it() {
    CliRun run = CliRun.of("status");
    assertThat(run.code()).isEqualTo(ExitCodes.CONFIG);
    assertThat(run.err()).contains("'database.url' is required", "--url", "--config", "OUTBOX4J_DATABASE_URL");
    CliRun run2 = CliRun.of("quarantined", "--table-prefix", "x_");
    assertThat(run2.err()).contains("--url", "--config");
  }

  @Test
  final void a_wrong_enum_value_lists_the_allowed_values_in_one_line_and_any_case_is_accepted() throws Exception {
    store.migrate();
    quarantinedEntry("enum-1");
    CliRun wrong = cli("discard", config(""), "--kind", "retries", "--dry-run");
    assertThat(wrong.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(wrong.err()).contains("--kind", "RETRIES_EXHAUSTED", "PERMANENT_FAILURE", "UNREADABLE", "'retries'")
        .doesNotContain("Usage:");
    assertThat(wrong.err().lines().filter(line -> line.contains("RETRIES_EXHAUSTED"))).hasSize(1);
    assertThat(wrong.err().lines().count()).isLessThanOrEqualTo(2);
    CliRun lowerCase = cli("discard", config(""), "--kind", "permanent_failure", "--dry-run");
    assertThat(lowerCase.code()).as(lowerCase.err()).isZero();
    assertThat(lowerCase.out()).contains("1 entry waiting for an operator (quarantined or parked) of kind"
        + " PERMANENT_FAILURE");
    CliRun unknownOption = cli("status", config(""), "--colour");
    assertThat(unknownOption.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(unknownOption.err()).contains("'--colour'", "status --help").doesNotContain("Usage:");
  }

  @Test
  final void a_database_error_prints_one_line_that_says_what_fixes_it_and_verbose_prints_the_whole_error() {
    String missingTables = "nothere" + prefix;
    CliRun run = CliRun.of("status", "--url", url(), "--table-prefix", missingTables);
    assertThat(run.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.err().lines()).as(run.err()).singleElement().satisfies(line -> assertThat(line)
        .startsWith("error: ").contains("run 'migrate'", "--table-prefix").doesNotContainIgnoringCase("SELECT"));
    CliRun verbose = CliRun.of("status", "--url", url(), "--table-prefix", missingTables, "--verbose");
    assertThat(verbose.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(verbose.err().lines().count()).isGreaterThan(3);
    assertThat(verbose.err()).contains("run 'migrate'", "at dev.outbox4j.jdbc.JdbcOutboxStore");
  }
}
