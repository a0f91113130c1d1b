package dev.outbox4j.relay.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.config.RelayConfig;
import dev.outbox4j.relay.runtime.RelayRuntime;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.QuarantineGroup;
import dev.outbox4j.spi.QuarantineGroups;
import dev.outbox4j.spi.WaitingSelector;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's operator API on a real relay over H2: what waits for an operator grouped and paged with totals,
 * every action asked for its count first and applied only with the confirmed count, group actions limited to the ids
 * the operator saw, and the audit log under the admin token's name.
 */
class OperatorApiTest {
  private static final String TOKEN = "test-admin-token-0123456789";
  private static final String BEARER = "Bearer " + TOKEN;

  @TempDir Path dir;

  private String url() {
    return "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
  }

  private RelayConfig config() throws IOException {
    Path file = dir.resolve("relay.yaml");
    Files.writeString(file, "database:\n  url: '" + url() + "'\n  migrate: true\n"
        + "server:\n  port: 0\n  admin-token: " + TOKEN + "\n  admin-token-name: ops-alice\n"
        + "transports:\n  hooks:\n    type: http\n    endpoint.orders: http://127.0.0.1:9/never\n"
        + "destinations:\n  orders: hooks\n");
    return ConfigReader.read(file, List.of(), Map.of());
  }

  /**
   * A store to write entries with before the relay starts (quarantined ones, which the relay never claims). The
   * database stays open for the JVM: H2 loses the last writes of a file database that its last connection closed when
   * it is opened again at once.
   */
  private JdbcOutboxStore seedStore() {
    JdbcDataSource dataSource = new JdbcDataSource();
    dataSource.setURL(url() + ";DB_CLOSE_DELAY=-1");
    JdbcOutboxStore store = JdbcOutboxStore.builder(dataSource).build();
    store.migrate();
    return store;
  }

  private static List<UUID> quarantine(JdbcOutboxStore store, String destination, int count, QuarantineReason reason) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(store.enqueue(Message.builder().withDestination(destination).withOrderingKey(destination + "-" + i)
          .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build()).id());
    }
    for (List<Claim> claims = store.claim(500, Instant.now(), Duration.ofMinutes(1)); !claims.isEmpty();
        claims = store.claim(500, Instant.now(), Duration.ofMinutes(1))) {
      for (Claim claim : claims) {
        String text = reason.text().replace("{n}", Long.toString(claim.entry().sequence()));
        assertThat(store.quarantine(claim, new QuarantineReason(reason.kind(), text))).isTrue();
      }
    }
    return ids;
  }

  private static String field(String json, String name) {
    Matcher found = Pattern.compile("\"" + name + "\":(\"[^\"]*\"|[^,}\\]]+)").matcher(json);
    assertThat(found.find()).as("%s in %s", name, json).isTrue();
    String value = found.group(1);
    return value.startsWith("\"") ? value.substring(1, value.length() - 1) : value;
  }

  private static List<String> ids(String json) {
    Matcher list = Pattern.compile("\"ids\":\\[([^\\]]*)\\]").matcher(json);
    assertThat(list.find()).isTrue();
    return Pattern.compile("\"([0-9a-f-]{36})\"").matcher(list.group(1)).results().map(m -> m.group(1)).toList();
  }

  @Test
  void what_waits_for_an_operator_is_grouped_by_failure_and_each_group_pages_with_its_total() throws IOException {
    try (JdbcOutboxStore seed = seedStore()) {
      quarantine(seed, "erp", 114, QuarantineReason.retriesExhausted("HTTP 503 from https://erp/orders after {n} ms"));
      quarantine(seed, "crm", 3, QuarantineReason.permanentFailure("field {n} rejected"));
    }
    try (RelayRuntime runtime = RelayRuntime.start(config())) {
      String groups = Http.get(runtime.baseUrl() + "/api/quarantine/groups").body();
      assertThat(groups).contains("\"total\":117", "\"grouped\":117", "\"complete\":true", "\"groupCount\":2",
          "\"pattern\":\"HTTP # from https://erp/orders after \\u003cduration\\u003e\"", // JSON escapes < and >
          "\"kind\":\"RETRIES_EXHAUSTED\"",
          "\"count\":114", "\"count\":3", "\"pattern\":\"field # rejected\"");
      String group = field(groups, "id");
      assertThat(groups.indexOf("\"count\":114")).as("largest first").isLessThan(groups.indexOf("\"count\":3"));

      String first = Http.get(runtime.baseUrl() + "/api/quarantined?group=" + group + "&limit=100").body();
      assertThat(field(first, "total")).isEqualTo("114");
      assertThat(field(first, "more")).isEqualTo("true");
      List<String> sequences = Pattern.compile("\"sequence\":(\\d+)").matcher(first).results().map(m -> m.group(1))
          .toList();
      assertThat(sequences).hasSize(100);
      String second = Http.get(runtime.baseUrl() + "/api/quarantined?group=" + group + "&limit=100&after="
          + sequences.get(99)).body();
      assertThat(Pattern.compile("\"sequence\":").matcher(second).results().count()).isEqualTo(14);
      assertThat(field(second, "more")).isEqualTo("false");
      assertThat(second).doesNotContain("\"destination\":\"crm\"");
      assertThat(field(Http.get(runtime.baseUrl() + "/api/quarantined?limit=10").body(), "total")).isEqualTo("117");
      assertThat(Http.get(runtime.baseUrl() + "/api/quarantine/groups?offset=1&limit=1").body())
          .contains("\"offset\":1", "\"count\":3").doesNotContain("\"count\":114");
      assertThat(Http.get(runtime.baseUrl() + "/api/quarantined?limit=abc").statusCode()).isEqualTo(400);
    }
  }

  @Test
  void a_group_action_is_asked_first_and_changes_only_the_entries_the_dry_run_listed_that_are_still_in_the_group()
      throws IOException {
    List<UUID> seeded;
    try (JdbcOutboxStore seed = seedStore()) {
      seeded = quarantine(seed, "erp", 55, QuarantineReason.retriesExhausted("HTTP 503 from erp after {n} ms"));
    }
    try (RelayRuntime runtime = RelayRuntime.start(config())) {
      JdbcOutboxStore store = runtime.store();
      QuarantineGroup group = store.quarantineGroups(QuarantineGroups.MAX_GROUPED).groups().get(0);
      String action = runtime.baseUrl() + "/api/actions/discard-group?group=" + group.id();

      assertThat(Http.post(action, BEARER).statusCode()).as("neither a dry run nor a confirmation").isEqualTo(400);
      HttpResponse<String> dryRun = Http.post(action + "&dryRun=true", BEARER);
      assertThat(dryRun.statusCode()).isEqualTo(200);
      assertThat(field(dryRun.body(), "count")).isEqualTo("55");
      List<String> listed = ids(dryRun.body());
      assertThat(listed).hasSize(55);
      assertThat(field(dryRun.body(), "target")) // JSON writes < and > escaped
          .isEqualTo("group erp / RETRIES_EXHAUSTED / HTTP # from erp after \\u003cduration\\u003e");
      assertThat(store.countQuarantined(dev.outbox4j.spi.QuarantineSelector.all())).isEqualTo(55);

      // meanwhile another operator discards one of them, and one more entry fails the same way
      assertThat(store.discard(seeded.get(7))).isTrue();
      Instant later = Instant.now().plus(Duration.ofHours(1)); // out of the running relay's reach
      UUID newcomer = store.enqueue(Message.builder().withDestination("erp").withOrderingKey("late")
          .withNotBefore(later).withPayload("{}".getBytes(StandardCharsets.UTF_8)).build()).id();
      List<Claim> late = store.claim(10, later, Duration.ofMinutes(1));
      assertThat(late).extracting(Claim::id).containsExactly(newcomer);
      assertThat(store.quarantine(late.get(0), QuarantineReason.retriesExhausted("HTTP 503 from erp after 999 ms")))
          .isTrue();
      assertThat(store.countQuarantined(dev.outbox4j.spi.QuarantineSelector.ofGroup(group))).isEqualTo(55);

      assertThat(Http.post(action + "&confirm=55", BEARER, String.join("\n", listed.subList(0, 54))).statusCode())
          .as("the ids must be the confirmed count").isEqualTo(400);
      HttpResponse<String> applied = Http.post(action + "&confirm=55", BEARER, String.join("\n", listed));
      assertThat(applied.statusCode()).as(applied.body()).isEqualTo(200);
      assertThat(field(applied.body(), "changed")).isEqualTo("54");
      assertThat(field(applied.body(), "left")).isEqualTo("1");
      assertThat(field(applied.body(), "result")).isEqualTo("discarded 54 of the 55 entries counted in the dry run; 1"
          + " was requeued, discarded or changed by someone else meanwhile");
      assertThat(seeded).allSatisfy(id -> assertThat(store.find(id)).isEmpty());
      assertThat(store.find(newcomer).orElseThrow().status()).as("not seen, not touched")
          .isEqualTo(EntryStatus.QUARANTINED);

      OperatorAction audited = store.operatorActions(1).get(0);
      assertThat(audited.actor()).isEqualTo("ops-alice");
      assertThat(audited.action()).isEqualTo("discard");
      assertThat(audited.entries()).isEqualTo(54);
      assertThat(audited.target()).isEqualTo("group erp / RETRIES_EXHAUSTED / HTTP # from erp after <duration>");
      assertThat(audited.detail()).isEqualTo("confirmed 55; 1 had left the group meanwhile");
      assertThat(Http.get(runtime.baseUrl() + "/api/audit").body()).contains("\"actor\":\"ops-alice\"",
          "\"action\":\"discard\"", "\"entries\":54");
    }
  }

  @Test
  void waiting_entries_are_parked_or_discarded_only_with_the_count_confirmed_and_a_changed_count_is_refused()
      throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config())) {
      JdbcOutboxStore store = runtime.store();
      Instant later = Instant.now().plus(Duration.ofHours(1)); // waiting, never claimed during the test
      for (int i = 0; i < 3; i++) {
        store.enqueue(Message.builder().withDestination("webhooks").withOrderingKey("hook-" + i).withNotBefore(later)
            .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build());
      }
      String park = runtime.baseUrl() + "/api/actions/park-waiting?destination=webhooks";
      assertThat(field(Http.post(park + "&dryRun=true", BEARER).body(), "count")).isEqualTo("3");
      store.enqueue(Message.builder().withDestination("webhooks").withOrderingKey("hook-9").withNotBefore(later)
          .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build());

      HttpResponse<String> stale = Http.post(park + "&confirm=3", BEARER);
      assertThat(stale.statusCode()).isEqualTo(409);
      assertThat(stale.body()).contains("\"count\":4", "\"confirmed\":3", "nothing was changed");
      assertThat(store.countWaiting(WaitingSelector.ofDestination("webhooks"), Instant.now())).isEqualTo(4);

      HttpResponse<String> parked = Http.post(park + "&confirm=4", BEARER);
      assertThat(parked.statusCode()).as(parked.body()).isEqualTo(200);
      assertThat(field(parked.body(), "changed")).isEqualTo("4");
      assertThat(store.countWaiting(WaitingSelector.ofDestination("webhooks"), Instant.now())).isZero();
      assertThat(store.quarantineGroups(100).groups()).singleElement()
          .satisfies(group -> assertThat(group.status()).isEqualTo(EntryStatus.PARKED));

      String discard = runtime.baseUrl() + "/api/actions/discard-waiting?destination=webhooks&key=hook-1";
      assertThat(field(Http.post(discard + "&dryRun=true", BEARER).body(), "count")).isEqualTo("0");
      assertThat(Http.post(runtime.baseUrl() + "/api/actions/discard-waiting?dryRun=true", BEARER).statusCode())
          .as("neither destination nor key").isEqualTo(400);
      assertThat(store.operatorActions(10)).singleElement().satisfies(action -> {
        assertThat(action.action()).isEqualTo("park");
        assertThat(action.target()).isEqualTo("waiting entries for destination 'webhooks'");
        assertThat(action.entries()).isEqualTo(4);
      });
    }
  }

  @Test
  void pause_and_resume_are_confirmed_recorded_under_the_token_name_and_listed() throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config())) {
      JdbcOutboxStore store = runtime.store();
      String pause = runtime.baseUrl() + "/api/actions/pause?destination=erp&reason=maintenance%20window";
      HttpResponse<String> dryRun = Http.post(pause + "&dryRun=true", BEARER);
      assertThat(dryRun.body()).contains("\"count\":1", "\"paused\":false", "\"waiting\":0");
      assertThat(store.operatorPauses()).isEmpty();
      assertThat(field(Http.post(pause + "&confirm=1", BEARER).body(), "changed")).isEqualTo("1");
      assertThat(store.operatorPauses()).singleElement().satisfies(p -> {
        assertThat(p.pausedBy()).isEqualTo("ops-alice");
        assertThat(p.reason()).isEqualTo("maintenance window");
      });
      assertThat(Http.post(pause + "&dryRun=true", BEARER).body()).as("paused already: nothing to do")
          .contains("\"count\":0", "\"paused\":true");
      assertThat(Http.post(pause + "&confirm=1", BEARER).statusCode()).isEqualTo(409);
      assertThat(Http.get(runtime.baseUrl() + "/api/pauses").body()).contains("\"destination\":\"erp\"",
          "\"pausedBy\":\"ops-alice\"");

      String resume = runtime.baseUrl() + "/api/actions/resume?destination=erp";
      assertThat(field(Http.post(resume + "&dryRun=true", BEARER).body(), "count")).isEqualTo("1");
      assertThat(field(Http.post(resume + "&confirm=1", BEARER).body(), "changed")).isEqualTo("1");
      assertThat(store.operatorPauses()).isEmpty();
      assertThat(store.operatorActions(10)).extracting(a -> a.actor() + " " + a.action() + " " + a.detail())
          .containsExactly("ops-alice resume ", "ops-alice pause by ops-alice: maintenance window");
    }
  }

  @Test
  void actions_refuse_a_missing_or_wrong_token_a_get_a_malformed_id_and_an_unknown_name_before_any_change()
      throws IOException {
    try (RelayRuntime runtime = RelayRuntime.start(config())) {
      String base = runtime.baseUrl() + "/api/actions/";
      assertThat(Http.post(base + "pause?destination=erp&confirm=1", null).statusCode()).isEqualTo(401);
      assertThat(Http.post(base + "pause?destination=erp&confirm=1", "Bearer wrong-token-0123456789").statusCode())
          .isEqualTo(403);
      assertThat(Http.get(base + "pause?destination=erp&confirm=1").statusCode()).isEqualTo(405);
      HttpResponse<String> malformed = Http.post(base + "discard-entry?id=not-a-uuid&dryRun=true", BEARER);
      assertThat(malformed.statusCode()).isEqualTo(400);
      assertThat(malformed.body()).contains("not an entry id");
      assertThat(Http.post(base + "discard-entry?id=" + UUID.randomUUID() + "&dryRun=true", BEARER).statusCode())
          .isEqualTo(404);
      assertThat(Http.post(base + "empty-everything?dryRun=true", BEARER).statusCode()).isEqualTo(404);
      assertThat(Http.post(base + "park-waiting?destination=erp&confirm=lots", BEARER).statusCode()).isEqualTo(400);
      assertThat(runtime.store().operatorPauses()).isEmpty();
      assertThat(runtime.store().operatorActions(10)).isEmpty();
    }
  }
}
