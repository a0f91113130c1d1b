package dev.outbox4j.jdbc.doctor;

import dev.outbox4j.jdbc.TableNames;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * What every check reads: the database as the relay reaches it, the outbox's table names, the relay's lease, the
 * relay's clock and how the store sends its statements.
 *
 * @param dataSource connections as the relay gets them (the same pool settings, driver properties and URL)
 * @param names the outbox's schema and prefix
 * @param lease how long the relay's claims hold
 * @param clock the relay's clock
 * @param preparedStatements whether the store lets the driver prepare its statements on the server
 *     ({@code JdbcOutboxStore.Builder.withPreparedStatements})
 */
record Examination(DataSource dataSource, TableNames names, Duration lease, Clock clock, boolean preparedStatements) {}
