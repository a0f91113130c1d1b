package dev.outbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.Message;
import dev.outbox4j.Relay;
import dev.outbox4j.RelayListener;
import dev.outbox4j.spi.DeliveryOutcome;
import dev.outbox4j.testkit.SettableClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Draws the picture of docs/relay.md's "Outages are per destination" from a real run: a relay on the in-memory store
 * and a settable clock, two destinations written to at the same rate, one of which refuses everything for a minute.
 * The test checks what the picture shows (the healthy destination keeps its rate through the outage, the refusing one
 * is paused, probed and drains after it), then writes the SVG to {@code target/outage-timeline.svg}, and to
 * {@code docs/images/} when run with {@code -Ddocs.images=true}.
 */
class OutageTimelineTest {
  private static final int SECONDS = 120;
  private static final int DOWN_FROM = 20;
  private static final int DOWN_UNTIL = 80;
  private static final int PER_SECOND = 20;
  private static final Duration STEP = Duration.ofMillis(100);

  @Test
  void a_refusing_destination_is_paused_probed_and_drained_while_the_other_keeps_its_rate() throws IOException {
    SettableClock clock = SettableClock.atFixedStart();
    Instant start = clock.instant();
    InMemoryOutboxStore store = InMemoryOutboxStore.builder().withClock(clock).build();
    AtomicBoolean erpDown = new AtomicBoolean();
    int[] ordersDelivered = new int[SECONDS];
    int[] erpDelivered = new int[SECONDS];
    List<Double> probes = new ArrayList<>();
    List<double[]> pauses = new ArrayList<>();
    Relay relay = Relay.builder(store, InProcessTransport.of(message -> {
      int second = (int) Duration.between(start, clock.instant()).toSeconds();
      if (message.destination().equals("erp")) {
        if (erpDown.get()) {
          probes.add(Duration.between(start, clock.instant()).toMillis() / 1000.0);
          return DeliveryOutcome.retryable("HTTP 503");
        }
        erpDelivered[Math.min(second, SECONDS - 1)]++;
      } else {
        ordersDelivered[Math.min(second, SECONDS - 1)]++;
      }
      return DeliveryOutcome.delivered();
    }))
        .withClock(clock)
        .withRandom(new java.util.Random(7))
        .withBatchSize(50)
        .withOutageBackoff(Duration.ofSeconds(1), Duration.ofSeconds(16))
        .withSleeper(clock::advance)
        .onEvent(new RelayListener() {
          @Override
          public void onDestinationPaused(DestinationStatus status) {
            pauses.add(new double[] {seconds(start, status.pausedSince()), SECONDS});
          }

          @Override
          public void onDestinationResumed(String destination, Duration pausedFor) {
            pauses.get(pauses.size() - 1)[1] = seconds(start, clock.instant());
          }
        })
        .build();

    int written = 0;
    for (long tick = 0; tick < SECONDS * 10L; tick++) {
      double now = tick / 10.0;
      erpDown.set(now >= DOWN_FROM && now < DOWN_UNTIL);
      for (; written < (tick + 1) * PER_SECOND / 10; written++) {
        String key = "order-" + (written % 40);
        store.enqueue(Message.builder().withDestination("orders").withOrderingKey(key).withPayload("o").build());
        store.enqueue(Message.builder().withDestination("erp").withOrderingKey("invoice-" + (written % 40))
            .withPayload("e").build());
      }
      relay.flush();
      clock.set(start.plus(STEP.multipliedBy(tick + 1)));
    }

    int ordersDuringOutage = 0;
    for (int s = DOWN_FROM; s < DOWN_UNTIL; s++) {
      ordersDuringOutage += ordersDelivered[s];
    }
    assertThat(ordersDuringOutage).as("the healthy destination keeps its rate through the outage")
        .isGreaterThanOrEqualTo((DOWN_UNTIL - DOWN_FROM - 1) * PER_SECOND);
    assertThat(pauses).as("one pause, ended by the first probe after the outage").hasSize(1);
    assertThat(pauses.get(0)[0]).isBetween((double) DOWN_FROM, DOWN_FROM + 1.0);
    assertThat(pauses.get(0)[1]).isBetween((double) DOWN_UNTIL, DOWN_UNTIL + 20.0);
    // 20 different entries failing with nothing confirmed judge it down; then at most 5 per probe, whose pauses grow
    // 1, 2, 4, 8, 16 s (equal jitter): about ten probes in the minute. Retrying every entry would be hundreds.
    assertThat(probes.size()).as("probes, not a retry of every entry").isLessThanOrEqualTo(20 + 5 * 10);
    assertThat(store.stats(clock.instant()).pending()).as("everything drained").isLessThan(2L * PER_SECOND);

    String svg = svg(ordersDelivered, erpDelivered, probes, pauses.get(0));
    DocsImages.write("outage-timeline.svg", svg);
  }

  private static double seconds(Instant start, Instant at) {
    return Duration.between(start, at).toMillis() / 1000.0;
  }

  /** Deliveries per second of each destination, the pause shaded, each probe a tick. */
  private static String svg(int[] orders, int[] erp, List<Double> probes, double[] pause) {
    int width = 760;
    int height = 260;
    int left = 50;
    int top = 30;
    int plotWidth = width - left - 20;
    int plotHeight = 170;
    int max = 10;
    for (int s = 0; s < SECONDS; s++) {
      max = Math.max(max, Math.max(orders[s], erp[s]));
    }
    double xScale = plotWidth / (double) SECONDS;
    double yScale = plotHeight / (double) max;
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
        + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
    out.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">Deliveries per second: 'erp'"
        + " answers 503 from %d s to %d s; 'orders' keeps its rate</text>%n", left, DOWN_FROM, DOWN_UNTIL));
    out.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#fde2c8\"/>%n",
        left + pause[0] * xScale, top, (pause[1] - pause[0]) * xScale, plotHeight));
    out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#a0522d\">'erp' paused</text>%n",
        left + pause[0] * xScale + 4, top + 14));
    for (double probe : probes) {
      double x = left + probe * xScale;
      out.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#a0522d\"/>%n",
          x, top + plotHeight, x, top + plotHeight - 8));
    }
    out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", left,
        top + plotHeight, left + plotWidth, top + plotHeight));
    out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", left,
        top, left, top + plotHeight));
    for (int s = 0; s <= SECONDS; s += 20) {
      out.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>%n",
          left + s * xScale, top + plotHeight + 16, s));
    }
    for (int v = 0; v <= max; v += Math.max(1, max / 4)) {
      out.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>%n", left - 6,
          top + plotHeight - v * yScale + 4, v));
    }
    out.append(polyline(orders, left, top + plotHeight, xScale, yScale, "#2e7d32"));
    out.append(polyline(erp, left, top + plotHeight, xScale, yScale, "#c62828"));
    int legend = top + plotHeight + 40;
    out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#2e7d32\""
        + " stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">orders</text>%n", left, legend, left + 24, legend, left + 30,
        legend + 4));
    out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c62828\""
        + " stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">erp</text>%n", left + 90, legend, left + 114, legend,
        left + 120, legend + 4));
    out.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#a0522d\"/>"
        + "<text x=\"%d\" y=\"%d\">a probe of 'erp' (at most 5 entries)</text>%n", left + 170, legend + 4,
        left + 170, legend - 4, left + 176, legend + 4));
    out.append("</svg>\n");
    return out.toString();
  }

  private static String polyline(int[] values, int left, int bottom, double xScale, double yScale, String colour) {
    StringBuilder points = new StringBuilder();
    for (int s = 0; s < values.length; s++) {
      points.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + (s + 0.5) * xScale, bottom - values[s] * yScale));
    }
    return String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
        colour, points.toString().trim());
  }
}
