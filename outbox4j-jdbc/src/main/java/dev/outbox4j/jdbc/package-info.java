/**
 * Outbox stores over plain JDBC for PostgreSQL, MariaDB/MySQL and H2.
 *
 * <ul>
 *   <li>{@link dev.outbox4j.jdbc.JdbcOutbox}: the write side; writes with the caller's {@link java.sql.Connection},
 *       inside the caller's transaction, and never begins, commits or rolls it back.
 *   <li>{@link dev.outbox4j.jdbc.JdbcOutboxStore}: both faces of {@link dev.outbox4j.spi.OutboxStore} (claims for the
 *       relay, the entry face for tools), on its own connections from a {@link javax.sql.DataSource}.
 *   <li>{@link dev.outbox4j.jdbc.JdbcDialect}: the narrow seam between portable code and one database; one class per
 *       database ({@link dev.outbox4j.jdbc.PostgresDialect}, {@link dev.outbox4j.jdbc.MariaDbDialect},
 *       {@link dev.outbox4j.jdbc.H2Dialect}), detected from {@link java.sql.DatabaseMetaData} and overridable.
 *   <li>{@link dev.outbox4j.jdbc.SchemaMigrator}: applies the versioned SQL files shipped under
 *       {@code db/outbox4j/<dialect>/} (the same files Flyway or Liquibase can run as they are).
 *   <li>{@link dev.outbox4j.jdbc.TableNames}: the validated schema and table prefix; SQL never contains unchecked
 *       input, values are always bound parameters.
 * </ul>
 *
 * <p>Per-key order is commit order: the number that orders a key's entries is allocated by the database while the
 * writing transaction holds a per-key row lock that lasts until its commit (see {@code docs/schema.md}).
 */
@NullMarked
package dev.outbox4j.jdbc;

import org.jspecify.annotations.NullMarked;
