package dev.outbox4j.spring.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code outbox4j} Actuator endpoint of an application with several outboxes ({@code outbox4j.outboxes.<name>}):
 * {@code GET /actuator/outbox4j} shows every outbox by name (its first page of entries waiting for an operator, their
 * total, its paused destinations), and every operation of the single outbox's {@link OutboxEndpoint} is there for one
 * outbox with its name as the first path segment: {@code GET /actuator/outbox4j/billing?limit=},
 * {@code GET /actuator/outbox4j/billing/groups}, {@code POST /actuator/outbox4j/billing/{id}},
 * {@code POST /actuator/outbox4j/billing/destinations/erp} with {@code action}, and so on. Each action changes and
 * audits that outbox only. An unknown outbox name is answered 400, naming the outboxes there are.
 *
 * <p>Exposed and secured as {@link OutboxEndpoint} is. Thread-safe.
 */
@Endpoint(id = "outbox4j")
public final class OutboxesEndpoint {
  private static final int DEFAULT_LIMIT = 100;

  private final Map<String, OutboxEndpoint> outboxes;

  /** @param outboxes one endpoint per outbox, by name, in the order to show them */
  public OutboxesEndpoint(Map<String, OutboxEndpoint> outboxes) {
    this.outboxes = new LinkedHashMap<>(Objects.requireNonNull(outboxes, "outboxes"));
  }

  /**
   * @param limit the most entries to list per outbox; default 100
   * @return every outbox by name: its first entries waiting for an operator, their total, its paused destinations
   * @throws InvalidEndpointRequestException if limit is out of range (400)
   */
  @ReadOperation
  public OutboxesReport outboxes(@Nullable Integer limit) {
    Map<String, OutboxEndpoint.QuarantineReport> reports = new LinkedHashMap<>();
    outboxes.forEach((name, endpoint) ->
        reports.put(name, endpoint.quarantined(limit == null ? DEFAULT_LIMIT : limit, null, null)));
    return new OutboxesReport(reports);
  }

  /**
   * @param outbox the outbox's name
   * @param limit see {@link OutboxEndpoint#quarantined(Integer, Long, String)}
   * @param after see there
   * @param group see there
   * @return the outbox's entries waiting for an operator, their total, and its paused destinations
   */
  @ReadOperation
  public OutboxEndpoint.QuarantineReport quarantined(@Selector String outbox, @Nullable Integer limit,
      @Nullable Long after, @Nullable String group) {
    return of(outbox).quarantined(limit, after, group);
  }

  /**
   * @param outbox the outbox's name
   * @param view see {@link OutboxEndpoint#view(String, Integer)}
   * @param limit see there
   * @return the view of that outbox
   */
  @ReadOperation
  public Object view(@Selector String outbox, @Selector String view, @Nullable Integer limit) {
    return of(outbox).view(view, limit);
  }

  /**
   * @param outbox the outbox's name
   * @param id see {@link OutboxEndpoint#requeue(String)}
   * @return whether the entry was requeued
   */
  @WriteOperation
  public OutboxEndpoint.ActionResult requeue(@Selector String outbox, @Selector String id) {
    return of(outbox).requeue(id);
  }

  /**
   * @param outbox the outbox's name
   * @param id see {@link OutboxEndpoint#discard(String, Boolean, SecurityContext)}
   * @param dryRun see there
   * @param security see there
   * @return whether the entry was discarded
   */
  @DeleteOperation
  public OutboxEndpoint.ActionResult discard(@Selector String outbox, @Selector String id, @Nullable Boolean dryRun,
      SecurityContext security) {
    return of(outbox).discard(id, dryRun, security);
  }

  /**
   * The parameters after {@code outbox} are those of
   * {@link OutboxEndpoint#requeueSelected(Boolean, String, String, String, String, String, Boolean, Integer,
   * SecurityContext)}.
   *
   * @param outbox the outbox's name
   * @param all every entry
   * @param key only this ordering key
   * @param destination only this destination
   * @param reason only reasons containing this
   * @param kind only this quarantine kind
   * @param id only this entry
   * @param dryRun change nothing, count
   * @param expectedCount refuse unless exactly this many
   * @param security who asks
   * @return how many were selected and requeued
   */
  @WriteOperation
  public OutboxEndpoint.BulkResult requeueSelected(@Selector String outbox, @Nullable Boolean all,
      @Nullable String key, @Nullable String destination, @Nullable String reason, @Nullable String kind,
      @Nullable String id, @Nullable Boolean dryRun, @Nullable Integer expectedCount, SecurityContext security) {
    return of(outbox).requeueSelected(all, key, destination, reason, kind, id, dryRun, expectedCount, security);
  }

  /**
   * The parameters after {@code outbox} are those of
   * {@link OutboxEndpoint#discardSelected(Boolean, String, String, String, String, String, Boolean, Integer,
   * SecurityContext)}.
   *
   * @param outbox the outbox's name
   * @param all every entry
   * @param key only this ordering key
   * @param destination only this destination
   * @param reason only reasons containing this
   * @param kind only this quarantine kind
   * @param id only this entry
   * @param dryRun change nothing, count
   * @param expectedCount refuse unless exactly this many
   * @param security who asks
   * @return how many were selected and discarded
   */
  @DeleteOperation
  public OutboxEndpoint.BulkResult discardSelected(@Selector String outbox, @Nullable Boolean all,
      @Nullable String key, @Nullable String destination, @Nullable String reason, @Nullable String kind,
      @Nullable String id, @Nullable Boolean dryRun, @Nullable Integer expectedCount, SecurityContext security) {
    return of(outbox).discardSelected(all, key, destination, reason, kind, id, dryRun, expectedCount, security);
  }

  /**
   * The parameters after {@code outbox} are those of
   * {@link OutboxEndpoint#operate(String, String, String, Boolean, Integer, String, String, String, SecurityContext)}.
   *
   * @param outbox the outbox's name
   * @param scope destinations, keys or groups
   * @param name the destination, key or group id
   * @param action the action
   * @param dryRun change nothing, count
   * @param expectedCount refuse unless exactly this many
   * @param reason why, for a pause
   * @param key only this key's waiting entries
   * @param destination only this destination's waiting entries
   * @param security who asks
   * @return what was counted and changed, or why it was refused
   */
  @WriteOperation
  public OutboxEndpoint.OperatorResult operate(@Selector String outbox, @Selector String scope,
      @Selector String name, String action, @Nullable Boolean dryRun, @Nullable Integer expectedCount,
      @Nullable String reason, @Nullable String key, @Nullable String destination, SecurityContext security) {
    return of(outbox).operate(scope, name, action, dryRun, expectedCount, reason, key, destination, security);
  }

  /**
   * @param outbox the outbox's name
   * @return that outbox's endpoint
   * @throws InvalidEndpointRequestException naming the outboxes there are, for another name (400)
   */
  public OutboxEndpoint of(String outbox) {
    OutboxEndpoint found = outboxes.get(outbox);
    if (found == null) {
      String message = "no outbox '" + outbox + "'; there are " + outboxes.keySet();
      throw new InvalidEndpointRequestException(message, message);
    }
    return found;
  }

  /** @param outboxes each outbox's first page, by name, in the order configured */
  public record OutboxesReport(Map<String, OutboxEndpoint.QuarantineReport> outboxes) {}
}
