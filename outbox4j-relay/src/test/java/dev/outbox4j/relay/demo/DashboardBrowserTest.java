package dev.outbox4j.relay.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.relay.runtime.RelayRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
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
 * .ci/run) against the running demo: counts move while the producer writes, the refusing destination's entry shows up
 * in quarantine, a wrong token is refused, the right one requeues it and it leaves the list.
 */
class DashboardBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  @TempDir Path demoDir;
  @TempDir Path profile;

  private static Path target() {
    return Path.of(System.getProperty("outbox4j.test.target", "target"));
  }

  private static long number(WebDriver driver, String id) {
    String text = driver.findElement(By.id(id)).getText().replace(",", "").trim();
    return text.isEmpty() || text.equals("–") ? -1 : (long) Double.parseDouble(text.replace(" s", ""));
  }

  @Test
  void the_dashboard_shows_messages_flowing_and_requeues_a_quarantined_entry_with_the_token() throws Exception {
    assertThat(CHROMIUM).as("install Debian's chromium and chromium-driver (see .ci/run)").exists();
    assertThat(CHROMEDRIVER).as("install Debian's chromium and chromium-driver (see .ci/run)").exists();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1280,1400");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    try (Demo demo = Demo.start(0, demoDir, 20, Clock.systemUTC())) {
      RelayRuntime runtime = demo.runtime();
      WebDriver driver = new ChromeDriver(service, options);
      try {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60), Duration.ofMillis(100));
        driver.get(runtime.baseUrl() + "/");

        wait.until(d -> number(d, "delivered") > 0);
        long first = number(driver, "delivered");
        wait.until(d -> number(d, "delivered") > first + 20);
        assertThat(driver.findElement(By.id("ready")).getText()).isEqualTo("database reachable");
        assertThat(number(driver, "waiting")).isGreaterThanOrEqualTo(0);
        assertThat(driver.findElements(By.cssSelector("#chart polyline"))).isNotEmpty();

        WebElement row = wait.until(d -> d.findElements(By.cssSelector("tr[data-destination='legacy-erp']")).stream()
            .findFirst().orElse(null));
        String id = row.getAttribute("data-id");
        assertThat(row.getText()).contains("legacy-erp", "gave up after 3 attempts", "HTTP 503");
        Files.createDirectories(target());
        Files.write(target().resolve("dashboard-quarantine.png"),
            ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));

        WebElement token = driver.findElement(By.id("token"));
        token.clear();
        token.sendKeys("not-the-token-at-all");
        driver.findElement(By.cssSelector("tr[data-id='" + id + "'] button.requeue")).click();
        wait.until(d -> d.findElement(By.id("message")).getText().contains("wrong"));
        assertThat(demo.runtime().store().find(UUID.fromString(id)).orElseThrow().status())
            .isEqualTo(EntryStatus.QUARANTINED);

        token.clear();
        token.sendKeys(runtime.adminToken().value());
        wait.until(d -> d.findElements(By.cssSelector("tr[data-id='" + id + "'] button.requeue")).size() == 1);
        driver.findElement(By.cssSelector("tr[data-id='" + id + "'] button.requeue")).click();
        wait.until(d -> d.findElement(By.id("message")).getText().equals("Requeued " + id));
        wait.until(d -> d.findElements(By.cssSelector("tr[data-id='" + id + "']")).isEmpty());
        List<WebElement> stillListed = driver.findElements(By.cssSelector("tr[data-id='" + id + "']"));
        assertThat(stillListed).isEmpty();
        Files.write(target().resolve("dashboard.png"), ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
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
        driver.get(runtime.baseUrl() + "/");

        wait.until(d -> "webhooks (http)".equals(cell(d, "orders", "transport")));
        wait.until(d -> cellNumber(d, "orders", "blocked") == 3);
        wait.until(d -> cellNumber(d, "orders", "rate") > 0);
        assertThat(cell(driver, "orders", "state")).isEqualTo("flowing");
        wait.until(d -> "no route".equals(cell(d, "nowhere", "transport")) && cellNumber(d, "nowhere", "quarantined") == 1);
        assertThat(cell(driver, "nowhere", "blocked")).isEqualTo("0");
        wait.until(d -> "webhooks (http)".equals(cell(d, "legacy-erp", "transport")));
        assertThat(cell(driver, "legacy-erp", "state")).isIn("flowing", "paused", "probing");
        assertThat(driver.findElements(By.cssSelector("#destinations-table th")).stream().map(WebElement::getText)
            .toList()).containsSubsequence("destination", "transport", "state", "waiting", "blocked", "in flight",
                "quarantined", "delivered / s", "oldest waiting", "oldest blocked");
        wait.until(d -> number(d, "blocked") >= 3);
        wait.until(d -> !d.findElement(By.id("blocked-age")).getText().equals("–"));
        assertThat(driver.findElement(By.cssSelector(".legend")).getText()).contains("oldest blocked");
        assertThat(driver.findElements(By.cssSelector("#chart polyline.blocked"))).isNotEmpty();

        Files.createDirectories(target());
        Files.write(target().resolve("dashboard-destinations.png"),
            driver.findElement(By.id("destinations-section")).getScreenshotAs(OutputType.BYTES));
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
}
