package dev.outbox4j.jdbc;

import java.util.Locale;

/**
 * When PostgreSQL numbers a keyed outbox entry within its key ({@link JdbcOutboxStore#useKeyNumbering}). Either way a
 * key's numbers follow the order in which its writers commit, which is the order its messages are sent in; the choice
 * is what the writers pay for it (docs/schema.md, "Per-key order is commit order").
 */
public enum KeyNumbering {
  /**
   * The schema's default: the key is locked only while the writer's transaction commits, and the number is written
   * back into the row then. Writers of one key wait for each other only during their commits; under SERIALIZABLE the
   * write-back makes PostgreSQL refuse many keyed writers' commits with {@code 40001}.
   */
  AT_COMMIT,
  /**
   * The key is locked, and the entry numbered, when the row is inserted; nothing is written back. A second writer of
   * the key waits at its insert until the first one's transaction ends. For writers at SERIALIZABLE: their keyed
   * writes then add no serialization failures but the first write of a new key's.
   */
  AT_INSERT;

  /** @return the value's name in configuration: {@code commit} or {@code insert} */
  public String configName() {
    return this == AT_COMMIT ? "commit" : "insert";
  }

  /**
   * @param name {@code commit} or {@code insert}, any case
   * @return the numbering
   * @throws IllegalArgumentException naming the values allowed
   */
  public static KeyNumbering fromConfigName(String name) {
    return switch (name.strip().toLowerCase(Locale.ROOT)) {
      case "commit" -> AT_COMMIT;
      case "insert" -> AT_INSERT;
      default -> throw new IllegalArgumentException("key numbering must be 'commit' or 'insert', not '" + name + "'");
    };
  }

  String describe() {
    return this == AT_COMMIT ? "at commit" : "at insert";
  }
}
