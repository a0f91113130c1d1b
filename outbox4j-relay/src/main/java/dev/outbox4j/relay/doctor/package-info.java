/**
 * The relay's doctor: the database checks of {@code dev.outbox4j.jdbc.doctor} over the relay's own pool, and the
 * checks of its configuration (TLS without verification, the Kafka progress topic), shown by the {@code doctor}
 * command, logged at {@code run} start and served at {@code /api/doctor}.
 */
@NullMarked
package dev.outbox4j.relay.doctor;

import org.jspecify.annotations.NullMarked;
