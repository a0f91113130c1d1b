package dev.outbox4j.kafka.connect;

import dev.outbox4j.spi.Claim;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.jspecify.annotations.Nullable;

/**
 * What a task writes as its source partition and offset, and how it reads them back.
 *
 * <h2>The design</h2>
 * The source partition is the task's slot in the outbox: {@code {"outbox": <table prefix>, "slot": <task number>}}.
 * Every record of one poll carries the same offset: {@code {"claim": <the claim's token>, "entries": <the claimed
 * entries' ids, comma separated>}}. With exactly once on, Connect commits a poll's records and that offset in one
 * Kafka transaction, so a slot's committed offset names exactly the entries of its last batch that landed.
 *
 * <p>A task claims its next batch only once every entry of its last batch is retired in the outbox. So the slot's
 * latest committed offset lists every entry of that slot that landed and may not be retired yet; nothing older needs
 * remembering, and no progress topic is needed. Two readers use it:
 * <ul>
 *   <li>the task itself on start (after a crash between Kafka's commit and the outbox's), which retires its slot's
 *       listed entries before it claims anything;
 *   <li>any task that claims an entry in doubt (an earlier claim of it expired with nothing recorded), which reads the
 *       committed offsets of every slot ({@code settle.slots}) and retires, instead of sending, an entry listed there.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class SourceOffsets {
  static final String OUTBOX = "outbox";
  static final String SLOT = "slot";
  static final String CLAIM = "claim";
  static final String ENTRIES = "entries";

  private SourceOffsets() {}

  /**
   * The partition's keys come in one fixed order ({@code outbox}, then {@code slot}). Connect finds a partition's offset
   * by the partition's serialized form (JSON, keys in the map's iteration order), so every worker JVM must write and
   * ask for the same bytes; {@code Map.of} iterates in an order that changes from one JVM to the next, and a task
   * restarted in another worker process would then not find its own offset.
   *
   * @param outbox the outbox's table prefix
   * @param slot the task number
   * @return the source partition of that slot
   */
  static Map<String, Object> partition(String outbox, int slot) {
    Map<String, Object> partition = new LinkedHashMap<>();
    partition.put(OUTBOX, outbox);
    partition.put(SLOT, slot);
    return Collections.unmodifiableMap(partition);
  }

  /**
   * @param claims one poll's claims that become records
   * @return the offset every record of the poll carries
   */
  static Map<String, Object> offset(List<Claim> claims) {
    StringBuilder ids = new StringBuilder(claims.size() * 37);
    for (Claim claim : claims) {
      if (ids.length() > 0) {
        ids.append(',');
      }
      ids.append(claim.id());
    }
    return Map.of(CLAIM, claims.isEmpty() ? "" : claims.get(0).token().toString(), ENTRIES, ids.toString());
  }

  /**
   * @param offset a committed offset, or {@code null} when the slot has none
   * @return the entries it lists
   */
  static Set<UUID> entriesOf(@Nullable Map<String, Object> offset) {
    Set<UUID> ids = new LinkedHashSet<>();
    if (offset == null || !(offset.get(ENTRIES) instanceof String listed) || listed.isEmpty()) {
      return ids;
    }
    for (String id : listed.split(",")) {
      ids.add(UUID.fromString(id));
    }
    return ids;
  }

  /**
   * Reads the committed offsets of slots {@code 0} to {@code slots - 1}.
   *
   * @param reader the task's offset reader (reads the offsets topic to its end, committed transactions only)
   * @param outbox the outbox's table prefix
   * @param slots how many slots to read
   * @return every entry any of those offsets lists
   */
  static Set<UUID> landedInAnySlot(OffsetStorageReader reader, String outbox, int slots) {
    List<Map<String, Object>> partitions = new ArrayList<>(slots);
    for (int slot = 0; slot < slots; slot++) {
      partitions.add(partition(outbox, slot));
    }
    Map<Map<String, Object>, Map<String, Object>> offsets = reader.offsets(partitions);
    Set<UUID> landed = new HashSet<>();
    if (offsets != null) {
      offsets.values().forEach(offset -> landed.addAll(entriesOf(offset)));
    }
    return landed;
  }

  /**
   * @param claims claims
   * @param ids entry ids
   * @return the claims whose entry is among {@code ids}, in their order
   */
  static List<Claim> among(Collection<Claim> claims, Set<UUID> ids) {
    return claims.stream().filter(claim -> ids.contains(claim.id())).toList();
  }
}
