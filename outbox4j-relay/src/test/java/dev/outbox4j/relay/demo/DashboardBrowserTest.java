package dev.outbox4j.relay.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.QuarantineReason;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.relay.config.ConfigReader;
import dev.outbox4j.relay.runtime.RelayRuntime;
import dev.outbox4j.spi.Claim;
import dev.outbox4j.spi.QuarantineSelector;
import dev.outbox4j.spi.WaitingSelector;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, installed by
 * .ci/run): against the running demo, counts move while the producer writes, a quarantined entry shows up in its group,
 * a wrong token is refused, the right one requeues it after a confirmation and it leaves the list; against a relay
 * over a seeded outbox, the quarantine grouped by failure and paged with totals, and every destructive action asked
 * first, refused when its count changed meanwhile, and written to the audit log.
 */
class DashboardBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  @TempDir Path demoDir;
  @TempDir Path profile;

  private static Path target() {
    return Path.of(System.getProperty("outbox4j.test.target", "target"));
  }

  /** The screenshots the docs show: refreshed in docs/images/ when the test runs with {@code -Ddocs.images=true}. */
  private static final java.util.Set<String> DOCS_IMAGES =
      java.util.Set.of("dashboard.png", "dashboard-destinations.png", "dashboard-operator.png");

  /** Writes a screenshot into target/, and into docs/images/ too when it is one the docs show and asked for. */
  private static void save(String name, byte[] png) throws java.io.IOException {
    Files.createDirectories(target());
    Files.write(target().resolve(name), png);
    if (Boolean.getBoolean("docs.images") && DOCS_IMAGES.contains(name)) {
      Path images = Path.of("..", "docs", "images");
      Files.createDirectories(images);
      Files.write(images.resolve(name), png);
    }
  }

  private static long number(WebDriver driver, String id) {
    String text = driver.findElement(By.id(id)).getText().replace(",", "").trim();
    return text.isEmpty() || text.equals("–") ? -1 : (long) Double.parseDouble(text.replace(" s", ""));
  }

  /** Clicks what the selector finds, again if the page redrew it just then. */
  private static void click(WebDriverWait wait, By selector) {
    wait.ignoring(StaleElementReferenceException.class).until(d -> {
      d.findElement(selector).click();
      return true;
    });
  }

  private WebDriver chromium(String windowSize) {
    assertThat(CHROMIUM).as("install Debian's chromium and chromium-driver (see .ci/run)").exists();
    assertThat(CHROMEDRIVER).as("install Debian's chromium and chromium-driver (see .ci/run)").exists();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=" + windowSize);
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    return new ChromeDriver(service, options);
  }

  @Test
  void the_dashboard_shows_messages_flowing_and_requeues_a_quarantined_entry_with_the_token() throws Exception {
    try (Demo demo = Demo.start(0, demoDir, 20, Clock.systemUTC())) {
      RelayRuntime runtime = demo.runtime();
      WebDriver driver = chromium("1280,1400");
      try {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60), Duration.ofMillis(100));
        wait.ignoring(StaleElementReferenceException.class);
        driver.get(runtime.baseUrl() + "/");

        wait.until(d -> number(d, "delivered") > 0);
        long first = number(driver, "delivered");
        wait.until(d -> number(d, "delivered") > first + 20);
        assertThat(driver.findElement(By.id("ready")).getText())
            .as("legacy-erp may be paused for a moment when a pass finds only its refused invoices")
            .isIn("database reachable", "1 destination paused");
        assertThat(number(driver, "waiting")).isGreaterThanOrEqualTo(0);
        assertThat(driver.findElements(By.cssSelector("#chart polyline"))).isNotEmpty();

        // an entry for a destination no transport serves is quarantined at once; paused, it stays out once requeued
        String id = runtime.store().enqueue(Message.builder().withDestination("unrouted").withOrderingKey("order-7")
            .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build()).id().toString();
        wait.until(d -> runtime.store().find(UUID.fromString(id)).orElseThrow().status() == EntryStatus.QUARANTINED);
        runtime.store().pauseDestination("unrouted", "test", "keeps the requeued entry from coming back", Instant.now());
        String group = wait.until(d -> d.findElements(By.cssSelector("#groups-table tr.group")).stream()
            .filter(g -> g.getText().contains("unrouted")).findFirst().map(g -> g.getAttribute("data-group"))
            .orElse(null));
        assertThat(read(wait, "tr.group[data-group='" + group + "']", WebElement::getText).get(0))
            .contains("unrouted", "PERMANENT_FAILURE", "no transport is configured for destination 'unrouted'");
        click(wait, By.cssSelector("tr.group[data-group='" + group + "'] button.expand"));
        wait.until(d -> !d.findElements(By.cssSelector("tr.entry[data-id='" + id + "']")).isEmpty());
        Files.createDirectories(target());
        Files.write(target().resolve("dashboard-quarantine.png"),
            ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));

        WebElement token = driver.findElement(By.id("token"));
        token.clear();
        token.sendKeys("not-the-token-at-all");
        click(wait, By.cssSelector("tr[data-id='" + id + "'] button.requeue"));
        wait.until(d -> d.findElement(By.id("message")).getText().contains("wrong"));
        assertThat(driver.findElement(By.id("confirm-dialog")).isDisplayed()).isFalse();
        assertThat(demo.runtime().store().find(UUID.fromString(id)).orElseThrow().status())
            .isEqualTo(EntryStatus.QUARANTINED);

        token.clear();
        token.sendKeys(runtime.adminToken().value());
        wait.until(d -> d.findElements(By.cssSelector("tr[data-id='" + id + "'] button.requeue")).size() == 1);
        click(wait, By.cssSelector("tr[data-id='" + id + "'] button.requeue"));
        wait.until(d -> d.findElement(By.id("confirm-dialog")).isDisplayed());
        assertThat(driver.findElement(By.id("confirm-text")).getText()).contains("Requeue entry " + id, "1 entry");
        driver.findElement(By.id("confirm-ok")).click();
        wait.until(d -> d.findElement(By.id("message")).getText().equals("Requeued " + id));
        wait.until(d -> d.findElements(By.cssSelector("tr[data-id='" + id + "']")).isEmpty());
        List<WebElement> stillListed = driver.findElements(By.cssSelector("tr[data-id='" + id + "']"));
        assertThat(stillListed).isEmpty();
        save("dashboard.png", ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      } finally {
        driver.quit();
      }
    }
    assertThat(target().resolve("dashboard.png")).exists();
  }

  /**
   * The destinations table on the running demo, with a key blocked on purpose: its first entry goes to a destination
   * no transport serves (quarantined at once), its next three to {@code orders}. The table shows each destination's
   * transport and state, counts those three as blocked on {@code orders} (not waiting), and the cards count them as
   * blocked with their age. The page rebuilds the table every second, so every read looks its cell up afresh.
   */
  @Test
  void the_destinations_table_shows_each_destinations_transport_state_and_entries_blocked_behind_quarantine()
      throws Exception {
    assertThat(CHROMIUM).as("install Debian's chromium and chromium-driver (see .ci/run)").exists();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1280,1400");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    try (Demo demo = Demo.start(0, demoDir, 20, Clock.systemUTC())) {
      RelayRuntime runtime = demo.runtime();
      UUID head = runtime.store().enqueue(Message.builder().withDestination("nowhere")
          .withOrderingKey("blocked-order").withPayload("{}").build()).id();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
          .until(() -> runtime.store().find(head).orElseThrow().status() == EntryStatus.QUARANTINED);
      for (int i = 0; i < 3; i++) {
        runtime.store().enqueue(Message.builder().withDestination("orders").withOrderingKey("blocked-order")
            .withPayload("{\"behind\":" + i + "}").build());
      }
      WebDriver driver = new ChromeDriver(service, options);
      try {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60), Duration.ofMillis(100));
        wait.ignoring(StaleElementReferenceException.class);
        driver.get(runtime.baseUrl() + "/");

        wait.until(d -> "webhooks (http)".equals(cell(d, "orders", "transport")));
        wait.until(d -> cellNumber(d, "orders", "blocked") == 3);
        wait.until(d -> cellNumber(d, "orders", "rate") > 0);
        String ordersState = wait.until(d -> cell(d, "orders", "state")); // null while the table is redrawn
        assertThat(ordersState).isEqualTo("flowing");
        wait.until(d -> "no route".equals(cell(d, "nowhere", "transport")) && cellNumber(d, "nowhere", "quarantined") == 1);
        wait.until(d -> "0".equals(cell(d, "nowhere", "blocked"))); // the table is redrawn every second
        wait.until(d -> "webhooks (http)".equals(cell(d, "legacy-erp", "transport")));
        String legacyState = wait.until(d -> cell(d, "legacy-erp", "state"));
        assertThat(legacyState).isIn("flowing", "paused", "probing");
        assertThat(driver.findElements(By.cssSelector("#destinations-table th")).stream().map(WebElement::getText)
            .toList()).containsSubsequence("destination", "transport", "state", "waiting", "blocked", "in flight",
                "quarantined", "delivered / s", "oldest waiting", "oldest blocked");
        wait.until(d -> number(d, "blocked") >= 3);
        wait.until(d -> !d.findElement(By.id("blocked-age")).getText().equals("–"));
        assertThat(driver.findElement(By.cssSelector(".legend")).getText()).contains("oldest blocked");
        assertThat(driver.findElements(By.cssSelector("#chart polyline.blocked"))).isNotEmpty();

        Files.createDirectories(target());
        save("dashboard-destinations.png", driver.findElement(By.id("destinations-section")).getScreenshotAs(OutputType.BYTES));
        Files.write(target().resolve("dashboard-blocked.png"),
            ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      } finally {
        driver.quit();
      }
    }
  }

  /** @return the text of a destination's cell in the column of that class, or {@code null} while it is not there */
  private static String cell(WebDriver driver, String destination, String column) {
    try {
      List<WebElement> cells = driver.findElements(
          By.cssSelector("#destinations-table tr[data-name='" + destination + "'] td." + column));
      return cells.isEmpty() ? null : cells.get(0).getText().trim();
    } catch (StaleElementReferenceException e) {
      return null; // the page rebuilt the table between the lookup and the read
    }
  }

  private static double cellNumber(WebDriver driver, String destination, String column) {
    String text = cell(driver, destination, column);
    return text == null || text.isEmpty() || text.equals("–") ? -1 : Double.parseDouble(text.replace(",", ""));
  }

  /** Writes entries and quarantines them with the reason, {@code {n}} standing for each one's sequence. */
  private static void quarantine(JdbcOutboxStore store, String destination, int count, QuarantineReason reason) {
    for (int i = 0; i < count; i++) {
      store.enqueue(Message.builder().withDestination(destination).withOrderingKey(destination + "-" + i)
          .withPayload("{}".getBytes(StandardCharsets.UTF_8)).build());
    }
    for (List<Claim> claims = store.claim(500, Instant.now(), Duration.ofMinutes(1)); !claims.isEmpty();
        claims = store.claim(500, Instant.now(), Duration.ofMinutes(1))) {
      for (Claim claim : claims) {
        String text = reason.text().replace("{n}", Long.toString(claim.entry().sequence()));
        assertThat(store.quarantine(claim, new QuarantineReason(reason.kind(), text))).isTrue();
      }
    }
  }

  private static Message waiting(String key) {
    return Message.builder().withDestination("webhooks").withOrderingKey(key)
        .withNotBefore(Instant.now().plus(Duration.ofHours(1))).withPayload("{}".getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private static String text(WebDriver driver, String css) {
    return driver.findElement(By.cssSelector(css)).getText();
  }

  /** Reads the matching elements whole, again when the page re-renders them while they are read. */
  private static <T> List<T> read(WebDriverWait wait, String css, Function<WebElement, T> value) {
    return wait.ignoring(StaleElementReferenceException.class)
        .until(d -> d.findElements(By.cssSelector(css)).stream().map(value).toList());
  }

  @Test
  void the_quarantine_is_grouped_by_failure_paged_with_totals_and_every_destructive_action_asks_first()
      throws Exception {
    String url = "jdbc:h2:file:" + demoDir.resolve("operator").toAbsolutePath();
    JdbcDataSource seed = new JdbcDataSource();
    seed.setURL(url + ";DB_CLOSE_DELAY=-1"); // kept open: H2 may lose the last writes of a file closed and reopened
    JdbcOutboxStore seeding = JdbcOutboxStore.builder(seed).build();
    seeding.migrate();
    quarantine(seeding, "erp", 114,
        QuarantineReason.retriesExhausted("gave up after 3 attempts; last error: HTTP 503 from erp after {n} ms"));
    quarantine(seeding, "crm", 55, QuarantineReason.permanentFailure("HTTP 400 from crm: field customer.{n} rejected"));
    quarantine(seeding, "billing", 3, QuarantineReason.permanentFailure("HTTP 404 from billing"));
    Path file = demoDir.resolve("relay.yaml");
    Files.writeString(file, "database:\n  url: '" + url + "'\n"
        + "server:\n  port: 0\n  admin-token: browser-admin-token-0123\n  admin-token-name: ops-alice\n"
        + "transports:\n  hooks:\n    type: http\n    endpoint.orders: http://127.0.0.1:9/never\n"
        + "destinations:\n  orders: hooks\n");
    try (RelayRuntime runtime = RelayRuntime.start(ConfigReader.read(file, List.of(), Map.of()))) {
      JdbcOutboxStore store = runtime.store();
      WebDriver driver = chromium("1400,1600");
      try {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30), Duration.ofMillis(100));
        wait.ignoring(StaleElementReferenceException.class);
        driver.get(runtime.baseUrl() + "/#token=browser-admin-token-0123");

        wait.until(d -> d.findElements(By.cssSelector("#groups-table tr.group")).size() == 3);
        assertThat(text(driver, "#quarantine-summary")).isEqualTo("172 entries wait for an operator, in 3 groups");
        assertThat(read(wait, "#groups-table tr.group", g -> g.getAttribute("data-count")))
            .containsExactly("114", "55", "3");
        assertThat(read(wait, "#groups-table tr.group", WebElement::getText).get(0)).contains("erp",
            "RETRIES_EXHAUSTED", "gave up after # attempt; last error: HTTP # from erp after <duration>");
        List<String> groups = read(wait, "#groups-table tr.group", g -> g.getAttribute("data-group"));
        String erp = groups.get(0);
        String crm = groups.get(1);

        // one group's entries, a hundred at a time, with the total
        click(wait, By.cssSelector("tr.group[data-group='" + erp + "'] button.expand"));
        String pager = "tr.group-entries[data-group='" + erp + "'] .entries-pager";
        wait.until(d -> text(d, pager + " .range").equals("1–100 of 114"));
        assertThat(driver.findElements(By.cssSelector("tr.group-entries[data-group='" + erp + "'] tr.entry")))
            .hasSize(100);
        click(wait, By.cssSelector(pager + " button.next"));
        wait.until(d -> text(d, pager + " .range").equals("101–114 of 114"));
        assertThat(driver.findElements(By.cssSelector("tr.group-entries[data-group='" + erp + "'] tr.entry")))
            .hasSize(14);
        assertThat(driver.findElement(By.cssSelector(pager + " button.next")).isEnabled()).isFalse();
        click(wait, By.cssSelector(pager + " button.previous"));
        wait.until(d -> text(d, pager + " .range").equals("1–100 of 114"));
        Files.createDirectories(target());
        Files.write(target().resolve("dashboard-quarantine-groups.png"),
            ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
        click(wait, By.cssSelector("tr.group[data-group='" + erp + "'] button.expand"));

        // a group discard shows the count and changes nothing until confirmed
        click(wait, By.cssSelector("tr.group[data-group='" + crm + "'] button.discard-group"));
        wait.until(d -> d.findElement(By.id("confirm-dialog")).isDisplayed());
        assertThat(text(driver, "#confirm-text")).startsWith("Discard 55 entries of group crm / PERMANENT_FAILURE /"
            + " HTTP # from crm: field customer.# rejected?");
        driver.findElement(By.id("confirm-cancel")).click();
        wait.until(d -> text(d, "#message").equals("Nothing was changed."));
        assertThat(store.countQuarantined(QuarantineSelector.ofDestination("crm"))).isEqualTo(55);
        click(wait, By.cssSelector("tr.group[data-group='" + crm + "'] button.discard-group"));
        wait.until(d -> d.findElement(By.id("confirm-dialog")).isDisplayed());
        driver.findElement(By.id("confirm-ok")).click();
        wait.until(d -> text(d, "#message").equals("Discarded 55 entries"));
        assertThat(store.countQuarantined(QuarantineSelector.ofDestination("crm"))).isZero();
        wait.until(d -> d.findElements(By.cssSelector("#groups-table tr.group")).size() == 2);

        // a count that changed between the question and the answer is refused, and nothing changes
        store.enqueue(waiting("hook-1"));
        store.enqueue(waiting("hook-2"));
        store.enqueue(waiting("hook-3"));
        driver.findElement(By.id("op-destination")).sendKeys("webhooks");
        click(wait, By.id("op-park"));
        wait.until(d -> d.findElement(By.id("confirm-dialog")).isDisplayed());
        assertThat(text(driver, "#confirm-text")).startsWith("Park the 3 waiting entries for destination 'webhooks'?");
        store.enqueue(waiting("hook-4"));
        driver.findElement(By.id("confirm-ok")).click();
        wait.until(d -> text(d, "#message").startsWith("The count changed meanwhile (4 now, 3 confirmed)"));
        assertThat(store.countWaiting(WaitingSelector.ofDestination("webhooks"), Instant.now())).isEqualTo(4);

        // pause by hand, confirmed, listed, and every change is in the audit log under the token's name
        driver.findElement(By.id("op-reason")).sendKeys("endpoint migrating");
        click(wait, By.id("op-pause"));
        wait.until(d -> d.findElement(By.id("confirm-dialog")).isDisplayed());
        assertThat(text(driver, "#confirm-text")).contains("Pause destination 'webhooks' for every relay?",
            "4 waiting entries are held back");
        driver.findElement(By.id("confirm-ok")).click();
        wait.until(d -> text(d, "#message").equals("Paused destination 'webhooks'"));
        wait.until(d -> !d.findElements(By.cssSelector("#pauses-table tr[data-paused='webhooks']")).isEmpty());
        assertThat(read(wait, "#pauses-table tr[data-paused='webhooks']", WebElement::getText).get(0))
            .contains("ops-alice", "endpoint migrating");
        wait.until(d -> d.findElements(By.cssSelector("#audit-table tr.audit")).size() == 2);
        List<String> audit = read(wait, "#audit-table tr.audit", WebElement::getText);
        assertThat(audit.get(0)).contains("ops-alice", "pause", "destination 'webhooks'");
        assertThat(audit.get(1)).contains("ops-alice", "discard", "55",
            "group crm / PERMANENT_FAILURE / HTTP # from crm: field customer.# rejected", "confirmed 55");
        save("dashboard-operator.png", ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      } finally {
        driver.quit();
        seeding.close();
      }
    }
  }
}
