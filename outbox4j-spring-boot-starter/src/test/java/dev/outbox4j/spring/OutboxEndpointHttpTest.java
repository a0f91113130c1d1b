package dev.outbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.OperatorAction;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import dev.outbox4j.spring.actuate.OutboxEndpoint;
import dev.outbox4j.spring.app.OrdersTestApplication;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The {@code outbox4j} Actuator endpoint over real HTTP (embedded Tomcat, H2, the running relay): the operator's
 * actions on a group, a destination and a key, each counted first with {@code dryRun} and refused when the
 * {@code expectedCount} no longer holds, recorded in the audit log; a malformed id or an unknown action is 400, not 500.
 */
@SpringBootTest(classes = OrdersTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.datasource.url=jdbc:h2:mem:outbox4j-endpoint-http;DB_CLOSE_DELAY=-1",
        "management.endpoints.web.exposure.include=outbox4j", "outbox4j.relay.max-poll=200ms"})
class OutboxEndpointHttpTest {
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Autowired
  Environment environment;
  @Autowired
  JdbcOutboxStore store;
  @Autowired
  OutboxEndpoint endpoint;

  @BeforeEach
  void nothingWaitsForAnOperator() {
    store.operatorPauses().forEach(pause -> store.resumeDestination(pause.destination()));
    // An entry an earlier test requeued may still be on its way back to quarantine: let the relay finish it first, or
    // it lands in quarantine after the discard below and spoils this test's counts.
    await().atMost(Duration.ofSeconds(20)).until(() -> store.stats(Instant.now()).waiting() == 0);
    store.discardAll(QuarantineSelector.all(), 10_000);
  }

  private String url(String path) {
    return "http://127.0.0.1:" + environment.getProperty("local.server.port") + "/actuator/outbox4j" + path;
  }

  private HttpResponse<String> send(String method, String path, String json) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(20))
        .header("Content-Type", "application/json")
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json))
        .build();
    try {
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String field(String json, String name) {
    Matcher found = Pattern.compile("\"" + name + "\":(\"[^\"]*\"|[^,}\\]]+)").matcher(json);
    assertThat(found.find()).as("%s in %s", name, json).isTrue();
    String value = found.group(1);
    return value.startsWith("\"") ? value.substring(1, value.length() - 1) : value;
  }

  private void poison(int count) {
    for (int i = 0; i < count; i++) {
      store.enqueue(Message.builder().withDestination("poison").withOrderingKey("p-" + UUID.randomUUID())
          .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build());
    }
    await().atMost(Duration.ofSeconds(20))
        .until(() -> store.countQuarantined(QuarantineSelector.ofDestination("poison")) == count);
  }

  @Test
  void the_doctor_view_reports_each_database_check_with_its_level_and_fix() {
    HttpResponse<String> doctor = send("GET", "/doctor", null);

    assertThat(doctor.statusCode()).as(doctor.body()).isEqualTo(200);
    assertThat(doctor.body()).contains("\"database\":\"H2 ", "\"findings\":[", "\"check\":\"isolation\"",
        "\"check\":\"schema\"", "\"level\":\"OK\"", "\"fix\":");
    assertThat(field(doctor.body(), "level")).isIn("OK", "INFO");
  }

  @Test
  void a_malformed_id_an_unknown_action_and_an_unknown_view_are_answered_400() {
    int recorded = store.operatorActions(1000).size();
    HttpResponse<String> requeue = send("POST", "/not-a-uuid", "{}");
    assertThat(requeue.statusCode()).as(requeue.body()).isEqualTo(400);
    assertThat(send("DELETE", "/not-a-uuid", null).statusCode()).isEqualTo(400);
    assertThat(send("DELETE", "/" + UUID.randomUUID() + "?dryRun=true", null).body()).contains("\"count\":0");
    assertThat(send("POST", "/destinations/erp", "{\"action\":\"explode\"}").statusCode()).isEqualTo(400);
    assertThat(send("POST", "/destinations/erp", "{}").statusCode()).as("no action").isEqualTo(400);
    assertThat(send("GET", "/nothing", null).statusCode()).isEqualTo(400);
    assertThat(send("DELETE", "", null).statusCode()).as("nothing selected").isEqualTo(400);
    assertThat(store.operatorActions(1000)).hasSize(recorded);
  }

  @Test
  void one_entry_is_requeued_by_a_post_without_a_body_and_discarded_by_a_delete_after_a_dry_run() throws Exception {
    poison(1);
    UUID id = store.quarantined(dev.outbox4j.spi.QuarantineQuery.first(1)).get(0).id();
    HttpResponse<String> requeued = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/" + id)))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
    assertThat(requeued.body()).contains("\"applied\":true");
    await().atMost(Duration.ofSeconds(20)) // refused again by the consumer: quarantined again
        .until(() -> store.find(id).orElseThrow().status() == EntryStatus.QUARANTINED);
    assertThat(send("DELETE", "/" + id + "?dryRun=true", null).body()).contains("\"dryRun\":true", "\"count\":1");
    assertThat(store.find(id)).isPresent();
    assertThat(send("DELETE", "/" + id, null).body()).contains("\"applied\":true");
    assertThat(store.find(id)).isEmpty();
    assertThat(store.operatorActions(2)).extracting(a -> a.action() + " " + a.actor())
        .containsExactly("discard actuator", "requeue actuator");

    poison(1);
    UUID next = store.quarantined(dev.outbox4j.spi.QuarantineQuery.first(1)).get(0).id();
    assertThat(send("POST", "", "{\"id\":\"" + next + "\",\"dryRun\":true}").body())
        .contains("\"matched\":1", "\"dryRun\":true");
    assertThat(send("POST", "", "{\"id\":\"" + next + "\",\"expectedCount\":1}").body()).contains("\"entries\":1");
    assertThat(store.operatorActions(1).get(0).target()).isEqualTo("entries waiting for an operator: id " + next);
    assertThat(send("POST", "", "{\"id\":\"nope\"}").statusCode()).isEqualTo(400);
  }

  @Test
  void a_group_is_counted_first_refused_when_its_count_changed_and_discarded_with_the_count_expected() {
    poison(3);
    HttpResponse<String> groups = send("GET", "/groups", null);
    assertThat(groups.statusCode()).isEqualTo(200);
    assertThat(groups.body()).contains("\"total\":3", "\"destination\":\"poison\"", "\"kind\":\"PERMANENT_FAILURE\"",
        "\"count\":3");
    String group = field(groups.body(), "id");
    assertThat(send("GET", "?group=" + group + "&limit=2", null).body()).contains("\"total\":3");

    assertThat(send("POST", "/groups/" + group, "{\"action\":\"discard\",\"dryRun\":true}").body())
        .contains("\"dryRun\":true", "\"count\":3", "\"changed\":0");
    assertThat(store.countQuarantined(QuarantineSelector.ofDestination("poison"))).isEqualTo(3);
    HttpResponse<String> stale = send("POST", "/groups/" + group, "{\"action\":\"discard\",\"expectedCount\":2}");
    assertThat(stale.body()).contains("\"changed\":0", "the count changed: 3 now, 2 expected");
    assertThat(store.countQuarantined(QuarantineSelector.ofDestination("poison"))).isEqualTo(3);

    HttpResponse<String> discarded = send("POST", "/groups/" + group, "{\"action\":\"discard\",\"expectedCount\":3}");
    assertThat(discarded.statusCode()).isEqualTo(200);
    assertThat(field(discarded.body(), "changed")).isEqualTo("3");
    assertThat(store.countQuarantined(QuarantineSelector.all())).isZero();
    assertThat(send("GET", "/audit", null).body()).contains("\"actor\":\"actuator\"", "\"action\":\"discard\"",
        "\"entries\":3", "group poison / PERMANENT_FAILURE / ", "refused by the test consumer");
  }

  @Test
  void a_destination_is_paused_and_its_waiting_entries_parked_with_counts_first_then_resumed() {
    Instant later = Instant.now().plus(Duration.ofHours(1)); // waiting, never claimed during the test
    for (String key : new String[] {"hook-1", "hook-2"}) {
      store.enqueue(Message.builder().withDestination("webhooks").withOrderingKey(key).withNotBefore(later)
          .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build());
    }
    assertThat(send("POST", "/destinations/webhooks", "{\"action\":\"pause\",\"dryRun\":true}").body())
        .contains("\"count\":1");
    assertThat(field(send("POST", "/destinations/webhooks",
        "{\"action\":\"pause\",\"expectedCount\":1,\"reason\":\"endpoint migrating\"}").body(), "changed"))
        .isEqualTo("1");
    assertThat(send("GET", "/pauses", null).body()).contains("\"destination\":\"webhooks\"",
        "\"pausedBy\":\"actuator\"", "\"reason\":\"endpoint migrating\"");

    assertThat(field(send("POST", "/destinations/webhooks", "{\"action\":\"park\",\"dryRun\":true}").body(),
        "count")).isEqualTo("2");
    assertThat(field(send("POST", "/keys/hook-1", "{\"action\":\"park\",\"destination\":\"webhooks\","
        + "\"expectedCount\":1}").body(), "changed")).isEqualTo("1");
    assertThat(field(send("POST", "/destinations/webhooks", "{\"action\":\"discard\",\"expectedCount\":1}").body(),
        "changed")).isEqualTo("1");
    assertThat(store.countWaiting(WaitingSelector.ofDestination("webhooks"), Instant.now())).isZero();
    assertThat(store.quarantined(QuarantineSelector.ofDestination("webhooks"), dev.outbox4j.spi.QuarantineQuery
        .first(10))).singleElement().satisfies(entry -> assertThat(entry.status()).isEqualTo(EntryStatus.PARKED));

    assertThat(field(send("POST", "/destinations/webhooks", "{\"action\":\"resume\",\"expectedCount\":1}").body(),
        "changed")).isEqualTo("1");
    assertThat(store.operatorPauses()).isEmpty();
    assertThat(store.operatorActions(10)).extracting(a -> a.action() + " " + a.entries() + " " + a.target())
        .startsWith("resume 0 destination 'webhooks'", "discard-waiting 1 waiting entries for destination 'webhooks'",
            "park 1 waiting entries of key 'hook-1' for destination 'webhooks'",
            "pause 0 destination 'webhooks'");
  }

  @Test
  void the_spring_principal_is_who_the_audit_log_names() {
    poison(1);
    Principal alice = () -> "alice";
    SecurityContext security = new SecurityContext() {
      @Override
      public Principal getPrincipal() {
        return alice;
      }

      @Override
      public boolean isUserInRole(String role) {
        return true;
      }
    };
    OutboxEndpoint.BulkResult discarded = endpoint.discardSelected(null, null, null, null, "PERMANENT_FAILURE", null,
        null, 1, security);
    assertThat(discarded.entries()).isEqualTo(1);
    OperatorAction recorded = store.operatorActions(1).get(0);
    assertThat(recorded.actor()).isEqualTo("alice");
    assertThat(recorded.target()).isEqualTo("entries waiting for an operator: kind PERMANENT_FAILURE");
    assertThat(recorded.detail()).isEqualTo("expected 1");
  }
}
