/**
 * The HTTP webhook transport: {@link dev.outbox4j.http.HttpTransport} POSTs each message's payload verbatim to an
 * endpoint named by the message's destination, signed with HMAC-SHA256 so the receiver can tell it came from this
 * relay; {@link dev.outbox4j.http.WebhookSignature} computes and verifies that signature for receivers written in Java.
 * See {@code docs/transport-http.md}.
 */
@NullMarked
package dev.outbox4j.http;

import org.jspecify.annotations.NullMarked;
