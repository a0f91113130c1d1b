/**
 * What in a deployment makes the outbox unsafe or slow, read from the database itself: its default isolation and commit
 * durability, a pooler in front, the outbox sequence's cache, the idle-transaction timeout against the lease, clock
 * skew between the relay and the database, and the schema version applied. Each {@link
 * dev.outbox4j.jdbc.doctor.Finding} names what was found, how much it matters ({@link
 * dev.outbox4j.jdbc.doctor.Finding.Level}) and the setting that fixes it. {@link
 * dev.outbox4j.jdbc.doctor.DatabaseDoctor} runs them; the runnable relay's {@code doctor} command, its start and its
 * server, and the Spring Boot starter's Actuator endpoint show them.
 */
@NullMarked
package dev.outbox4j.jdbc.doctor;

import org.jspecify.annotations.NullMarked;
