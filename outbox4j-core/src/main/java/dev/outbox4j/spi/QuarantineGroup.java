package dev.outbox4j.spi;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.QuarantineKind;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Entries waiting for an operator that failed the same way: same destination, same status and
 * {@linkplain QuarantineKind kind}, and the same {@linkplain ReasonPattern reason pattern}. An outage that quarantined
 * 55 entries with "HTTP 503 from …/erp after … ms" is one group of 55, which an operator requeues or discards as one
 * ({@link QuarantineSelector#ofGroup}, narrowed to the {@link #ids} the operator saw with
 * {@link QuarantineSelector#withIds}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param destination the entries' destination
 * @param status {@link EntryStatus#QUARANTINED} or {@link EntryStatus#PARKED}
 * @param kind the quarantine kind; {@code null} for parked entries (which have none)
 * @param pattern the {@linkplain ReasonPattern#of reason pattern} they share (of the last error, for parked entries)
 * @param example the reason of the group's oldest entry, as written
 * @param ids the entries' ids in sequence order (oldest first); not empty
 */
public record QuarantineGroup(String destination, EntryStatus status, @Nullable QuarantineKind kind, String pattern,
    String example, List<UUID> ids) {

  /**
   * @throws NullPointerException if a field other than kind is {@code null}
   * @throws IllegalArgumentException if the status does not wait for an operator, a parked group has a kind, or ids is
   *     empty
   */
  public QuarantineGroup {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(pattern, "pattern");
    Objects.requireNonNull(example, "example");
    ids = List.copyOf(ids);
    if (!status.awaitsOperator()) {
      throw new IllegalArgumentException("a group holds entries waiting for an operator, not " + status);
    }
    if (status == EntryStatus.PARKED && kind != null) {
      throw new IllegalArgumentException("parked entries have no quarantine kind");
    }
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("a group holds at least one entry");
    }
  }

  /** @return how many entries the group holds */
  public int count() {
    return ids.size();
  }

  /**
   * A short name of the group that stays the same while its destination, status, kind and pattern do (whatever
   * entries join or leave it), for a dashboard or a script to name the group in a later request.
   *
   * @return 16 lower-case hexadecimal characters
   */
  public String id() {
    return idOf(destination, status, kind, pattern);
  }

  /**
   * @param destination the destination
   * @param status the status
   * @param kind the kind, or {@code null}
   * @param pattern the reason pattern
   * @return the {@link #id()} of a group with these properties
   */
  public static String idOf(String destination, EntryStatus status, @Nullable QuarantineKind kind, String pattern) {
    String identity = destination + '\u0000' + status + '\u0000' + (kind == null ? "" : kind.name()) + '\u0000'
        + pattern;
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(identity.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** @return the kind's name, or {@code PARKED} for a group of parked entries: what a person reads as "kind" */
  public String kindLabel() {
    return kindLabel(status, kind);
  }

  /**
   * What a person reads as an entry's or a group's "kind", the same in every list, group and action target.
   *
   * @param status the entry's status
   * @param kind its quarantine kind, or {@code null}
   * @return {@code PARKED} for a parked entry (it has no quarantine kind), else the kind's name, or the status's name
   *     when it has no kind
   */
  public static String kindLabel(EntryStatus status, @Nullable QuarantineKind kind) {
    return status == EntryStatus.PARKED || kind == null ? status.name() : kind.name();
  }
}
