package dev.outbox4j.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The validated schema and table-name prefix of the outbox4j tables. Every table, sequence, function and trigger name
 * outbox4j uses is {@code prefix + name}, optionally qualified by the schema. Both parts are checked against a strict
 * identifier pattern here, once, so SQL built from them can never carry unchecked input; they are used unquoted, so
 * the database folds their case as it does for any unquoted name.
 *
 * <p>Immutable and thread-safe.
 *
 * @param schema the schema (a database on MariaDB/MySQL), or {@code null} for the connection's default
 * @param prefix prepended to every object name; default {@value #DEFAULT_PREFIX}; may be empty
 */
public record TableNames(@Nullable String schema, String prefix) {
  /** The default prefix; the migration files are written with it, so Flyway or Liquibase can run them as they are. */
  public static final String DEFAULT_PREFIX = "outbox4j_";
  /** Longest prefix: keeps the longest derived name within PostgreSQL's 63-character identifier limit. */
  public static final int MAX_PREFIX_LENGTH = 30;
  /** Longest schema name. */
  public static final int MAX_SCHEMA_LENGTH = 63;

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /**
   * @throws IllegalArgumentException naming the option when the schema or prefix is not a plain identifier
   *     (letters, digits and underscores, not starting with a digit) or is too long
   */
  public TableNames {
    Objects.requireNonNull(prefix, "prefix");
    if (!prefix.isEmpty() && (prefix.length() > MAX_PREFIX_LENGTH || !IDENTIFIER.matcher(prefix).matches())) {
      throw new IllegalArgumentException("table prefix must match " + IDENTIFIER + " and be at most "
          + MAX_PREFIX_LENGTH + " characters, was '" + prefix + "'");
    }
    if (schema != null && (schema.length() > MAX_SCHEMA_LENGTH || !IDENTIFIER.matcher(schema).matches())) {
      throw new IllegalArgumentException("schema must match " + IDENTIFIER + " and be at most "
          + MAX_SCHEMA_LENGTH + " characters, was '" + schema + "'");
    }
  }

  /** @return the default names: no schema, prefix {@value #DEFAULT_PREFIX} */
  public static TableNames defaults() {
    return new TableNames(null, DEFAULT_PREFIX);
  }

  /**
   * @param prefix the prefix
   * @return names with that prefix and no schema
   * @throws IllegalArgumentException if the prefix is not a plain identifier
   */
  public static TableNames withPrefix(String prefix) {
    return new TableNames(null, prefix);
  }

  /**
   * @param name an outbox4j object name such as {@code outbox}
   * @return the prefixed name, qualified by the schema when there is one (for tables, sequences, functions)
   */
  public String qualified(String name) {
    return schema == null ? prefix + name : schema + "." + prefix + name;
  }

  /**
   * @param name an outbox4j object name such as {@code ix_outbox_claim}
   * @return the prefixed, unqualified name (for indexes, constraints and per-table triggers)
   */
  public String unqualified(String name) {
    return prefix + name;
  }
}
