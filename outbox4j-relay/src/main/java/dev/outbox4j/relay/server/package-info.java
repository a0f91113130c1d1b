/**
 * The dashboard, its JSON API, Prometheus metrics and health endpoints, on the JDK HTTP server; admin actions need {@link dev.outbox4j.relay.server.AdminToken}.
 */
@NullMarked
package dev.outbox4j.relay.server;

import org.jspecify.annotations.NullMarked;
