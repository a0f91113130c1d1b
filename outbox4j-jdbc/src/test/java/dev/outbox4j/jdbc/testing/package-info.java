/**
 * Test fixtures that outbox4j-jdbc publishes in its test-jar for other modules' tests, such as
 * {@link dev.outbox4j.jdbc.testing.PostgresTestOutbox}. Not part of the library.
 */
@NullMarked
package dev.outbox4j.jdbc.testing;

import org.jspecify.annotations.NullMarked;
