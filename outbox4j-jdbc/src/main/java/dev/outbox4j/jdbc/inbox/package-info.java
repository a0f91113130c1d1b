/**
 * The {@link dev.outbox4j.inbox.Inbox} over plain JDBC: {@link dev.outbox4j.jdbc.inbox.JdbcInbox} records message ids
 * with the consumer's own {@link java.sql.Connection}, inside the consumer's transaction, on PostgreSQL, MariaDB/MySQL
 * and H2. Its table ships as the migration file {@code V100__inbox.sql} beside the outbox's own files.
 */
@NullMarked
package dev.outbox4j.jdbc.inbox;

import org.jspecify.annotations.NullMarked;
