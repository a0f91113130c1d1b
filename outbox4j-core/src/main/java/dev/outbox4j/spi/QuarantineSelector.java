package dev.outbox4j.spi;

import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import java.util.Collection;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Which entries waiting for an operator (quarantined or parked) a bulk {@link OutboxStore#requeueAll},
 * {@link OutboxStore#discardAll}, {@link OutboxStore#countQuarantined} or a filtered
 * {@link OutboxStore#quarantined(QuarantineSelector, QuarantineQuery)} acts on. Every criterion that is set must
 * match; {@link #all()} sets none. {@link #matches} is the rule every store follows.
 *
 * <h2>Acting on exactly what an operator saw</h2>
 * A group ({@link #ofGroup}) is a moving target: entries join it as they are quarantined and leave it as other
 * operators act. To requeue or discard exactly the entries an operator was shown and confirmed, select the group
 * {@linkplain #withIds narrowed to the ids} the operator saw: entries that joined since are left alone, and entries
 * that left it (requeued, discarded, or quarantined again for another reason) are not touched either, so the action
 * changes at most the confirmed count, and the count it returns tells how many were still there.
 *
 * <p>Immutable and thread-safe.
 *
 * @param orderingKey only entries of this ordering key, or {@code null} for any
 * @param destination only entries for this destination, or {@code null} for any
 * @param reasonContains only entries whose reason contains this text (case-sensitive; for a parked entry, which has
 *     no quarantine reason, its last error), or {@code null} for any
 * @param kind only quarantined entries of this kind (parked entries have none, so never match), or {@code null} for
 *     any
 * @param group only entries of the {@linkplain QuarantineGroup#id() group} with this id (same destination, status,
 *     kind and {@linkplain ReasonPattern reason pattern}), or {@code null} for any
 * @param ids only entries with one of these ids (at most {@value #MAX_IDS}), or {@code null} for any
 */
public record QuarantineSelector(@Nullable String orderingKey, @Nullable String destination,
    @Nullable String reasonContains, @Nullable QuarantineKind kind, @Nullable String group, @Nullable Set<UUID> ids) {

  /** The most ids one selector names: a group is at most {@value QuarantineGroups#MAX_GROUPED} entries. */
  public static final int MAX_IDS = QuarantineGroups.MAX_GROUPED;

  /**
   * Copies the ids.
   *
   * @throws IllegalArgumentException if a text criterion is empty, or ids is empty or names more than
   *     {@value #MAX_IDS} entries
   */
  public QuarantineSelector {
    if (orderingKey != null && orderingKey.isEmpty()) {
      throw new IllegalArgumentException("orderingKey must not be empty (use null for any key)");
    }
    if (destination != null && destination.isEmpty()) {
      throw new IllegalArgumentException("destination must not be empty (use null for any destination)");
    }
    if (reasonContains != null && reasonContains.isEmpty()) {
      throw new IllegalArgumentException("reasonContains must not be empty (use null for any reason)");
    }
    if (group != null && group.isEmpty()) {
      throw new IllegalArgumentException("group must not be empty (use null for any group)");
    }
    if (ids != null) {
      ids = Set.copyOf(ids);
      if (ids.isEmpty() || ids.size() > MAX_IDS) {
        throw new IllegalArgumentException("ids must name 1.." + MAX_IDS + " entries, named " + ids.size());
      }
    }
  }

  /**
   * A selector by key, destination, reason and kind (no group, no ids).
   *
   * @param orderingKey only entries of this ordering key, or {@code null} for any
   * @param destination only entries for this destination, or {@code null} for any
   * @param reasonContains only entries whose reason contains this text, or {@code null} for any
   * @param kind only quarantined entries of this kind, or {@code null} for any
   * @throws IllegalArgumentException if a text criterion is empty
   */
  public QuarantineSelector(@Nullable String orderingKey, @Nullable String destination,
      @Nullable String reasonContains, @Nullable QuarantineKind kind) {
    this(orderingKey, destination, reasonContains, kind, null, null);
  }

  /** @return every entry waiting for an operator */
  public static QuarantineSelector all() {
    return new QuarantineSelector(null, null, null, null);
  }

  /**
   * @param key the ordering key
   * @return the entries of that key
   */
  public static QuarantineSelector ofKey(String key) {
    return new QuarantineSelector(key, null, null, null);
  }

  /**
   * @param destination the destination
   * @return the entries for that destination
   */
  public static QuarantineSelector ofDestination(String destination) {
    return new QuarantineSelector(null, destination, null, null);
  }

  /**
   * @param text a fragment of the reason
   * @return the entries whose reason contains it
   */
  public static QuarantineSelector reasonContaining(String text) {
    return new QuarantineSelector(null, null, text, null);
  }

  /**
   * @param kind a quarantine kind
   * @return the quarantined entries of that kind
   */
  public static QuarantineSelector ofKind(QuarantineKind kind) {
    return new QuarantineSelector(null, null, null, kind);
  }

  /**
   * @param group a group
   * @return the entries of that group now (its destination and kind, which a store can look up by index, and its id)
   */
  public static QuarantineSelector ofGroup(QuarantineGroup group) {
    return new QuarantineSelector(null, group.destination(), null, group.kind(), group.id(), null);
  }

  /**
   * @param ids entry ids; 1 to {@value #MAX_IDS}
   * @return the entries waiting for an operator among them
   * @throws IllegalArgumentException if there are none or too many
   */
  public static QuarantineSelector ofIds(Collection<UUID> ids) {
    return new QuarantineSelector(null, null, null, null, null, Set.copyOf(ids));
  }

  /**
   * @param kind a quarantine kind, or {@code null} for any
   * @return a copy that also requires that kind
   */
  public QuarantineSelector withKind(@Nullable QuarantineKind kind) {
    return new QuarantineSelector(orderingKey, destination, reasonContains, kind, group, ids);
  }

  /**
   * @param entryIds entry ids; 1 to {@value #MAX_IDS}
   * @return a copy that also requires one of these ids (replacing any ids it had)
   * @throws IllegalArgumentException if there are none or too many
   */
  public QuarantineSelector withIds(Collection<UUID> entryIds) {
    return new QuarantineSelector(orderingKey, destination, reasonContains, kind, group, Set.copyOf(entryIds));
  }

  /**
   * The rule: the entry waits for an operator and every criterion that is set matches.
   *
   * @param member an entry's operator columns
   * @return whether this selector selects it
   */
  public boolean matches(QuarantineGroups.Member member) {
    if (!member.status().awaitsOperator()) {
      return false;
    }
    if (orderingKey != null && !orderingKey.equals(member.orderingKey())) {
      return false;
    }
    if (destination != null && !destination.equals(member.destination())) {
      return false;
    }
    if (kind != null && kind != member.groupKind()) {
      return false;
    }
    if (reasonContains != null && (member.reason() == null || !member.reason().contains(reasonContains))) {
      return false;
    }
    if (ids != null && !ids.contains(member.id())) {
      return false;
    }
    return group == null || group.equals(member.groupId());
  }

  /**
   * @param entry an entry
   * @return whether this selector selects it
   */
  public boolean matches(OutboxEntry entry) {
    return matches(QuarantineGroups.Member.of(entry));
  }

  /**
   * @return the selection in words, for messages and audit lines: {@code every entry waiting for an operator}, or the
   *     criteria, such as {@code destination 'erp', kind RETRIES_EXHAUSTED, 55 ids}
   */
  public String describe() {
    java.util.List<String> parts = new java.util.ArrayList<>();
    if (orderingKey != null) {
      parts.add("key '" + orderingKey + "'");
    }
    if (destination != null) {
      parts.add("destination '" + destination + "'");
    }
    if (kind != null) {
      parts.add("kind " + kind);
    }
    if (reasonContains != null) {
      parts.add("reason containing '" + reasonContains + "'");
    }
    if (group != null) {
      parts.add("group " + group);
    }
    if (ids != null) {
      parts.add(ids.size() == 1 ? "id " + ids.iterator().next() : ids.size() + " ids");
    }
    return parts.isEmpty() ? "every entry waiting for an operator" : String.join(", ", parts);
  }
}
