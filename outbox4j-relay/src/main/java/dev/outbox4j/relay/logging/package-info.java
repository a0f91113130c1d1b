/**
 * The relay process's logging: one backend (Logback) for every library and client inside the jar, in one of two
 * formats, plain lines or JSON lines. See docs/relay-app.md, "Logging". Not API.
 */
@NullMarked
package dev.outbox4j.relay.logging;

import org.jspecify.annotations.NullMarked;
