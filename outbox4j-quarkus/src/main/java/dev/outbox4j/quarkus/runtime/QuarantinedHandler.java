package dev.outbox4j.quarkus.runtime;

import dev.outbox4j.DestinationStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.Relay;
import dev.outbox4j.jdbc.JdbcOutboxStore;
import dev.outbox4j.spi.QuarantineQuery;
import dev.outbox4j.spi.QuarantineSelector;
import io.quarkus.arc.Arc;
import io.quarkus.arc.ArcContainer;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /q/outbox4j/quarantined?limit=100&after=<sequence>}: the entries waiting for an operator (quarantined and
 * parked), read-only, as the Spring Boot starter's Actuator endpoint lists them: {@code entries} in sequence order
 * ({@code id}, {@code sequence}, {@code destination}, {@code orderingKey}, {@code attempts}, {@code reason},
 * {@code lastError}, {@code createdAt}; never payloads or headers), their {@code total}, and the
 * {@code pausedDestinations} of this application's relay. Acting on them (requeue, discard) stays with the relay CLI
 * and dashboard.
 *
 * <p>Answers 404 unless {@code outbox4j.endpoint.enabled=true}: the entries' keys and errors may be worth protecting,
 * so the listing is asked for, as Actuator endpoints are exposed. A malformed or out-of-range {@code limit} or
 * {@code after} is answered 400 with the reason. Registered, as a blocking management route (under
 * {@code quarkus.management.root-path} when the management interface is on), when the application has
 * {@code quarkus-vertx-http}. Thread-safe.
 */
public final class QuarantinedHandler implements Handler<RoutingContext> {
  /** The route under the non-application root path ({@code /q/} by default). */
  public static final String PATH = "outbox4j/quarantined";
  private static final int DEFAULT_LIMIT = 100;

  /** Creates the handler; its beans are looked up per request. */
  public QuarantinedHandler() {}

  @Override
  public void handle(RoutingContext context) {
    ArcContainer container = Arc.container();
    if (!container.instance(Outbox4jConfig.class).get().endpoint().enabled()) {
      answer(context, 404, new JsonObject().put("error", "set outbox4j.endpoint.enabled=true to list the entries "
          + "waiting for an operator here"));
      return;
    }
    QuarantineQuery query;
    try {
      String after = context.queryParams().get("after");
      String limit = context.queryParams().get("limit");
      query = new QuarantineQuery(limit == null ? DEFAULT_LIMIT : Integer.parseInt(limit),
          after == null ? null : Long.valueOf(after));
    } catch (IllegalArgumentException e) {
      answer(context, 400, new JsonObject().put("error", "limit must be 1.." + QuarantineQuery.MAX_LIMIT
          + " and after a sequence number: " + e.getMessage()));
      return;
    }
    JdbcOutboxStore store = container.instance(JdbcOutboxStore.class).get();
    List<DestinationStatus> paused = container.instance(RelayRuntime.class).get().relay()
        .map(Relay::pausedDestinations).orElse(List.of());
    JsonArray entries = new JsonArray();
    store.quarantined(QuarantineSelector.all(), query).forEach(entry -> entries.add(entry(entry)));
    JsonArray destinations = new JsonArray();
    paused.forEach(status -> destinations.add(destination(status)));
    answer(context, 200, new JsonObject()
        .put("entries", entries)
        .put("pausedDestinations", destinations)
        .put("total", store.countQuarantined(QuarantineSelector.all())));
  }

  private static JsonObject entry(OutboxEntry entry) {
    return new JsonObject()
        .put("id", entry.id().toString())
        .put("sequence", entry.sequence())
        .put("destination", entry.message().destination())
        .put("orderingKey", entry.message().orderingKey().orElse(null))
        .put("attempts", entry.attempts())
        .put("reason", entry.quarantineReason())
        .put("lastError", entry.lastError())
        .put("createdAt", text(entry.createdAt()));
  }

  private static JsonObject destination(DestinationStatus status) {
    return new JsonObject()
        .put("destination", status.destination())
        .put("cause", status.cause().name())
        .put("pausedSince", text(status.pausedSince()))
        .put("nextProbeAt", text(status.nextProbeAt()))
        .put("nextSendAt", text(status.nextSendAt()))
        .put("probing", status.probing())
        .put("lastError", status.lastError())
        .put("failedProbes", status.failedProbes());
  }

  private static @Nullable String text(@Nullable Instant instant) {
    return instant == null ? null : instant.toString();
  }

  private static void answer(RoutingContext context, int status, JsonObject body) {
    context.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
