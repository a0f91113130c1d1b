package dev.outbox4j.relay.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.outbox4j.http.HttpTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's webhook receivers, served next to the dashboard. {@link #orders()} accepts a webhook only when its
 * Standard Webhooks signature verifies with the specification's reference library ({@code com.standardwebhooks}, which
 * also refuses a timestamp more than five minutes off), as any receiver would check it; it counts duplicates by message id (delivery is at-least-once) and
 * checks that each order's events arrive in order. {@link #refusing()} is the legacy ERP: it takes invoices under
 * {@value #ERP_LIMIT} and answers 503 to larger ones. That is a failure of single messages, not an outage: the ERP
 * keeps confirming the others, so the relay never pauses it and charges each refused invoice an attempt, and those
 * entries run out of their attempts and show up in quarantine while the rest flow.
 *
 * <p>Thread-safe.
 */
public final class DemoSink {
  private static final Pattern STEP = Pattern.compile("\"step\":(\\d+)");
  private static final Pattern TOTAL = Pattern.compile("\"total\":(\\d+)");
  /** The largest invoice total the legacy ERP takes (exclusive). */
  static final int ERP_LIMIT = 50;

  private final Webhook verifier;
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> lastStep = new ConcurrentHashMap<>();
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong badSignatures = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong outOfOrder = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  /**
   * @param secret the Standard Webhooks secret ({@code whsec_} + base64) the relay's HTTP transport signs with
   * @throws IllegalArgumentException if the secret is empty
   */
  public DemoSink(String secret) {
    try {
      this.verifier = new Webhook(secret);
    } catch (com.standardwebhooks.exceptions.EmptyWebhookSecretException e) {
      throw new IllegalArgumentException("the demo's signing secret must not be empty", e);
    }
  }

  private boolean verifies(HttpExchange exchange, byte[] body) {
    Map<String, List<String>> headers = Map.of(
        "webhook-id", headerValues(exchange, "webhook-id"),
        "webhook-timestamp", headerValues(exchange, "webhook-timestamp"),
        "webhook-signature", headerValues(exchange, "webhook-signature"));
    try {
      verifier.verify(new String(body, StandardCharsets.UTF_8), headers);
      return true;
    } catch (WebhookVerificationException e) {
      return false;
    }
  }

  private static List<String> headerValues(HttpExchange exchange, String name) {
    List<String> values = exchange.getRequestHeaders().get(name);
    return values == null ? List.of() : values;
  }

  /** @return the handler of the {@code orders} destination */
  public HttpHandler orders() {
    return exchange -> {
      try (exchange) {
        byte[] body = exchange.getRequestBody().readAllBytes();
        if (!verifies(exchange, body)) {
          badSignatures.incrementAndGet();
          answer(exchange, 401);
          return;
        }
        String id = String.valueOf(exchange.getRequestHeaders().getFirst(HttpTransport.MESSAGE_ID_HEADER));
        String key = exchange.getRequestHeaders().getFirst(HttpTransport.ORDERING_KEY_HEADER);
        if (!seen.add(id)) {
          duplicates.incrementAndGet();
        } else {
          received.incrementAndGet();
          Matcher step = STEP.matcher(new String(body, StandardCharsets.UTF_8));
          if (key != null && step.find()) {
            int current = Integer.parseInt(step.group(1));
            Integer before = lastStep.put(key, current);
            if (before != null && before >= current) {
              outOfOrder.incrementAndGet();
            }
          }
        }
        answer(exchange, 204);
      }
    };
  }

  /** @return the handler of the legacy ERP: invoices under {@value #ERP_LIMIT} are taken, larger ones refused */
  public HttpHandler refusing() {
    return exchange -> {
      try (exchange) {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Matcher total = TOTAL.matcher(body);
        if (total.find() && Integer.parseInt(total.group(1)) < ERP_LIMIT) {
          answer(exchange, 204);
          return;
        }
        refused.incrementAndGet();
        exchange.getResponseHeaders().set("Retry-After", "2");
        answer(exchange, 503);
      }
    };
  }

  private static void answer(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
  }

  /** @return webhooks accepted with a valid signature, each message id counted once */
  public long received() {
    return received.get();
  }

  /** @return webhooks refused for a missing or wrong signature */
  public long badSignatures() {
    return badSignatures.get();
  }

  /** @return webhooks whose message id arrived before (at-least-once redeliveries) */
  public long duplicates() {
    return duplicates.get();
  }

  /** @return events that arrived after a later event of the same order (never expected) */
  public long outOfOrder() {
    return outOfOrder.get();
  }

  /** @return requests the refusing destination turned away */
  public long refused() {
    return refused.get();
  }
}
