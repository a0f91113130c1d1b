package dev.outbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.EntryStatus;
import dev.outbox4j.Message;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.RetryPolicy;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.SettableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Draws the picture of docs/relay.md's "How an outage is told from poison" from a real run: a relay on the in-memory
 * store and a settable clock, two destinations. {@code partner}, fed by one key, answers 503 to everything for a
 * minute; {@code legacy-erp} takes small invoices and answers 503 to big ones, all along. Every try is a tick on its
 * destination's row: confirmed, charged to its message, or charged to nobody; the pauses are shaded and the quarantines
 * marked. The test checks what the picture shows, then writes the SVG to {@code target/outage-judgement.svg}, and to
 * {@code docs/images/} when run with {@code -Ddocs.images=true}.
 */
class OutageJudgementTimelineTest {
  private static final int SECONDS = 120;
  private static final int DOWN_FROM = 20;
  private static final int DOWN_UNTIL = 80;
  private static final Duration STEP = Duration.ofMillis(100);
  private static final Duration WINDOW = Duration.ofSeconds(16);
  private static final List<String> ROWS = List.of("partner", "legacy-erp");

  private enum Mark { CONFIRMED, CHARGED, UNCHARGED, QUARANTINED }

  private record Tick(String destination, double at, Mark mark) {}

  @Test
  void one_key_down_is_paused_uncharged_while_refused_invoices_are_charged_and_their_destination_never_paused()
      throws IOException {
    SettableClock clock = SettableClock.atFixedStart();
    Instant start = clock.instant();
    InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();
    List<Tick> ticks = new ArrayList<>();
    Map<UUID, String> failedNow = new HashMap<>();
    Set<UUID> chargedNow = new HashSet<>();
    Map<String, List<double[]>> pauses = new HashMap<>();
    boolean[] partnerDown = {false};
    Relay relay = Relay.builder(store, InProcessTransport.of(message -> {
      String text = new String(message.payload(), StandardCharsets.UTF_8);
      boolean refused = message.destination().equals("partner") ? partnerDown[0] : text.startsWith("big");
      if (refused) {
        failedNow.put(message.id(), message.destination());
        return DeliveryOutcome.retryable("HTTP 503");
      }
      ticks.add(new Tick(message.destination(), seconds(start, clock.instant()), Mark.CONFIRMED));
      return DeliveryOutcome.delivered();
    }))
        .withClock(clock)
        .withRandom(new java.util.Random(7))
        .withRetryPolicy(RetryPolicy.linear().withBase(Duration.ofSeconds(1)).withCap(Duration.ofSeconds(5))
            .withMaxAttempts(3).build())
        .withOutageBackoff(Duration.ofSeconds(1), WINDOW)
        .withSleeper(clock::advance)
        .onEvent(new RelayListener() {
          @Override
          public void onFailed(OutboxEntry entry, String error, Instant nextAttemptAt) {
            chargedNow.add(entry.id());
          }

          @Override
          public void onQuarantined(OutboxEntry entry, String reason) {
            chargedNow.add(entry.id());
            ticks.add(new Tick(entry.message().destination(), seconds(start, clock.instant()), Mark.QUARANTINED));
          }

          @Override
          public void onDestinationPaused(DestinationStatus status) {
            pauses.computeIfAbsent(status.destination(), d -> new ArrayList<>())
                .add(new double[] {seconds(start, status.pausedSince()), SECONDS});
          }

          @Override
          public void onDestinationResumed(String destination, Duration pausedFor) {
            List<double[]> of = pauses.get(destination);
            of.get(of.size() - 1)[1] = seconds(start, clock.instant());
          }
        })
        .build();

    List<UUID> big = new ArrayList<>();
    List<UUID> partner = new ArrayList<>();
    for (long tick = 0; tick < SECONDS * 10L; tick++) {
      double now = tick / 10.0;
      partnerDown[0] = now >= DOWN_FROM && now < DOWN_UNTIL;
      if (tick % 20 == 0) {
        partner.add(store.enqueue(Message.builder().withDestination("partner").withOrderingKey("aggregate-7")
            .withPayload("p" + tick).build()).id());
      }
      if (tick % 5 == 0) {
        // 3 of every 7 invoices are big, some of them in a row; none in the last 20 s, so each is given up by the end
        boolean isBig = (tick / 5) % 7 < 3 && now < SECONDS - 20;
        UUID id = store.enqueue(Message.builder().withDestination("legacy-erp").withOrderingKey("invoice-" + tick)
            .withPayload((isBig ? "big" : "small") + tick).build()).id();
        if (isBig) {
          big.add(id);
        }
      }
      relay.flush();
      double at = seconds(start, clock.instant());
      for (Map.Entry<UUID, String> failed : failedNow.entrySet()) {
        ticks.add(new Tick(failed.getValue(), at, chargedNow.contains(failed.getKey()) ? Mark.CHARGED : Mark.UNCHARGED));
      }
      failedNow.clear();
      chargedNow.clear();
      clock.set(start.plus(STEP.multipliedBy(tick + 1)));
    }

    assertThat(pauses.get("partner")).as("one pause of the one-key destination, ended after the outage").hasSize(1);
    assertThat(pauses.get("partner").get(0)[0]).as("paused once it confirmed nothing for the window")
        .isBetween((double) DOWN_FROM, DOWN_FROM + WINDOW.toSeconds() + 3.0);
    assertThat(pauses.get("partner").get(0)[1]).isBetween((double) DOWN_UNTIL, DOWN_UNTIL + WINDOW.toSeconds() + 1.0);
    assertThat(ticks).filteredOn(t -> t.destination().equals("partner") && t.mark() != Mark.CONFIRMED)
        .as("the outage is charged to nobody but, at most, its first failure right after a confirmation")
        .noneMatch(t -> t.mark() == Mark.QUARANTINED)
        .filteredOn(t -> t.mark() == Mark.CHARGED).hasSizeLessThanOrEqualTo(1);
    assertThat(ticks).filteredOn(t -> t.destination().equals("partner") && t.mark() == Mark.UNCHARGED).isNotEmpty();
    for (UUID id : partner) {
      assertThat(store.find(id)).as("the partner's messages all delivered after the outage").isEmpty();
    }
    assertThat(pauses).as("legacy-erp keeps confirming small invoices: never paused").doesNotContainKey("legacy-erp");
    for (UUID id : big) {
      OutboxEntry entry = store.find(id).orElseThrow();
      assertThat(entry.status()).isEqualTo(EntryStatus.QUARANTINED);
      assertThat(entry.attempts()).isEqualTo(3);
    }

    String svg = svg(ticks, pauses);
    DocsImages.write("outage-judgement.svg", svg);
  }

  private static double seconds(Instant start, Instant at) {
    return Duration.between(start, at).toMillis() / 1000.0;
  }

  private static String colour(Mark mark) {
    return switch (mark) {
      case CONFIRMED -> "#2e7d32";
      case CHARGED -> "#c62828";
      case UNCHARGED -> "#9e9e9e";
      case QUARANTINED -> "black";
    };
  }

  /** One row per destination: a tick per try, coloured by its verdict; pauses shaded; quarantines as diamonds. */
  private static String svg(List<Tick> ticks, Map<String, List<double[]>> pauses) {
    int width = 760;
    int left = 90;
    int top = 40;
    int rowHeight = 60;
    int plotWidth = width - left - 20;
    int height = top + ROWS.size() * rowHeight + 80;
    double xScale = plotWidth / (double) SECONDS;
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
        + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
    out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Every try, by verdict: 'partner'"
        + " (one key) answers 503 from %d s to %d s; 'legacy-erp' refuses big invoices all along</text>%n", 10,
        DOWN_FROM, DOWN_UNTIL));
    int bottom = top + ROWS.size() * rowHeight;
    for (int s = DOWN_FROM; s <= DOWN_UNTIL; s += DOWN_UNTIL - DOWN_FROM) {
      out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\""
          + " stroke-dasharray=\"3,3\"/>%n", left + s * xScale, top, left + s * xScale, bottom));
    }
    for (int row = 0; row < ROWS.size(); row++) {
      String destination = ROWS.get(row);
      int y = top + row * rowHeight;
      for (double[] pause : pauses.getOrDefault(destination, List.of())) {
        out.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
            + " fill=\"#fde2c8\"/><text x=\"%.1f\" y=\"%d\" fill=\"#a0522d\">paused</text>%n", left + pause[0] * xScale,
            y + 4, (pause[1] - pause[0]) * xScale, rowHeight - 8, left + pause[0] * xScale + 3, y + 16));
      }
      out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", left - 8,
          y + rowHeight / 2 + 4, destination));
      out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>%n", left,
          y + rowHeight - 2, left + plotWidth, y + rowHeight - 2));
      for (Tick tick : ticks) {
        if (!tick.destination().equals(destination)) {
          continue;
        }
        double x = left + tick.at() * xScale;
        if (tick.mark() == Mark.QUARANTINED) {
          int cy = y + 12;
          out.append(String.format(Locale.ROOT, "<path d=\"M%.1f %d l4 4 l-4 4 l-4 -4 z\" fill=\"black\"/>%n", x,
              cy - 4));
          continue;
        }
        int mid = y + rowHeight / 2;
        int up = tick.mark() == Mark.CONFIRMED ? -14 : 14;
        out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>%n", x,
            mid + 2, x, mid + 2 + up, colour(tick.mark())));
      }
    }
    for (int s = 0; s <= SECONDS; s += 20) {
      out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>%n",
          left + s * xScale, bottom + 16, s));
    }
    int legend = bottom + 44;
    String[][] items = {{"#2e7d32", "confirmed (up)"}, {"#c62828", "failed, charged to the message"},
        {"#9e9e9e", "failed, charged to nobody"}};
    int x = 10;
    for (String[] item : items) {
      out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
          + " stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">%s</text>%n", x, legend - 6, x, legend + 6, item[0], x + 6,
          legend + 4, item[1]));
      x += 20 + item[1].length() * 7;
    }
    out.append(String.format(Locale.ROOT, "<path d=\"M%d %d l4 4 l-4 4 l-4 -4 z\" fill=\"black\"/><text x=\"%d\""
        + " y=\"%d\">quarantined</text>%n", x, legend - 4, x + 8, legend + 4));
    out.append("</svg>\n");
    return out.toString();
  }
}
