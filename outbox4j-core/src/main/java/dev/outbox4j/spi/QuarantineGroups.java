package dev.outbox4j.spi;

import dev.outbox4j.EntryStatus;
import dev.outbox4j.OutboxEntry;
import dev.outbox4j.QuarantineKind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What {@link OutboxStore#quarantineGroups} found: the entries waiting for an operator, grouped by failure, and how
 * many there are in all.
 *
 * <p>Grouping is bounded: a store groups at most the oldest {@link #grouped} entries (at most
 * {@value #MAX_GROUPED}), reading a few short columns of each (never payloads), so a quarantine of millions of
 * entries costs one bounded read. When {@link #complete()} is {@code false}, the newer entries are not in any group
 * yet: act on the groups shown, and they come up next.
 *
 * <p>Immutable and thread-safe.
 *
 * @param groups the groups, largest first (ties: the one with the oldest entry first)
 * @param total how many entries wait for an operator (quarantined and parked), grouped or not
 * @param grouped how many of them, the oldest, the groups hold
 */
public record QuarantineGroups(List<QuarantineGroup> groups, long total, int grouped) {
  /** The most entries one call groups. */
  public static final int MAX_GROUPED = 10_000;

  /**
   * The few columns of an entry waiting for an operator that grouping and selecting read (never the payload).
   *
   * @param id the entry id
   * @param orderingKey its ordering key, or {@code null}
   * @param destination its destination
   * @param status its status; only {@link EntryStatus#QUARANTINED} and {@link EntryStatus#PARKED} entries are grouped
   *     or selected
   * @param kind its quarantine kind, or {@code null} (parked)
   * @param reason its quarantine reason, or for a parked entry its last error; {@code null} when it has none
   */
  public record Member(UUID id, @Nullable String orderingKey, String destination, EntryStatus status,
      @Nullable QuarantineKind kind, @Nullable String reason) {
    /** @throws NullPointerException if id, destination or status is {@code null} */
    public Member {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(destination, "destination");
      Objects.requireNonNull(status, "status");
    }

    /**
     * @param entry an entry
     * @return its grouping columns
     */
    public static Member of(OutboxEntry entry) {
      return new Member(entry.id(), entry.message().orderingKey().orElse(null), entry.message().destination(),
          entry.status(), entry.quarantineKind(),
          entry.quarantineReason() != null ? entry.quarantineReason() : entry.lastError());
    }

    /** @return the kind the member is grouped under: its kind when quarantined, none when parked */
    public @Nullable QuarantineKind groupKind() {
      return status == EntryStatus.PARKED ? null : kind;
    }

    /**
     * @return what a person reads as its kind: {@code PARKED}, or its quarantine kind
     *     ({@link QuarantineGroup#kindLabel})
     */
    public String kindLabel() {
      return QuarantineGroup.kindLabel(status, kind);
    }

    /** @return the {@link QuarantineGroup#id() id} of the group it belongs to */
    public String groupId() {
      return QuarantineGroup.idOf(destination, status, groupKind(), ReasonPattern.of(reason));
    }
  }

  /**
   * Groups entries the one way every store groups them (so that the same entries give the same groups everywhere).
   *
   * @param oldestFirst entries waiting for an operator, in sequence order
   * @param total how many entries wait for an operator in all; raised to the number of members when lower (the two
   *     were read a moment apart)
   * @return the groups
   */
  public static QuarantineGroups of(List<Member> oldestFirst, long total) {
    Map<String, List<Member>> byGroup = new LinkedHashMap<>();
    for (Member member : oldestFirst) {
      if (member.status().awaitsOperator()) {
        byGroup.computeIfAbsent(member.groupId(), k -> new ArrayList<>()).add(member);
      }
    }
    List<QuarantineGroup> groups = new ArrayList<>();
    for (List<Member> members : byGroup.values()) {
      Member first = members.get(0);
      groups.add(new QuarantineGroup(first.destination(), first.status(), first.groupKind(),
          ReasonPattern.of(first.reason()),
          first.reason() == null ? "" : first.reason(), members.stream().map(Member::id).toList()));
    }
    // LinkedHashMap kept first-seen order, which is oldest-entry order; a stable sort by size keeps it for ties
    groups.sort(Comparator.comparingInt(QuarantineGroup::count).reversed());
    int grouped = groups.stream().mapToInt(QuarantineGroup::count).sum();
    return new QuarantineGroups(groups, Math.max(total, grouped), grouped);
  }

  /** @throws IllegalArgumentException if the counts are negative or grouped exceeds total */
  public QuarantineGroups {
    groups = List.copyOf(groups);
    if (grouped < 0 || total < grouped) {
      throw new IllegalArgumentException("need 0 <= grouped <= total, was grouped " + grouped + ", total " + total);
    }
  }

  /** @return {@code true} when every entry waiting for an operator is in a group */
  public boolean complete() {
    return grouped == total;
  }

  /**
   * @param id a {@link QuarantineGroup#id() group id}
   * @return the group with that id, if it is among these
   */
  public java.util.Optional<QuarantineGroup> find(String id) {
    return groups.stream().filter(group -> group.id().equals(id)).findFirst();
  }
}
