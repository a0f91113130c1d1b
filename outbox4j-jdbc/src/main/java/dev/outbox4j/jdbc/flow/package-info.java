/**
 * The {@link dev.outbox4j.flow.FlowLedger} over plain JDBC: {@link dev.outbox4j.jdbc.flow.JdbcFlowLedger} keeps flow
 * states, their time to live and their execution leases in one table on PostgreSQL, MariaDB/MySQL and H2. Its table
 * ships as the migration file {@code V101__flow_ledger.sql} beside the outbox's own files.
 */
@NullMarked
package dev.outbox4j.jdbc.flow;

import org.jspecify.annotations.NullMarked;
