/**
 * Not API: plumbing shared by the JDBC outbox store, inbox and flow ledger. Free to change in any release; do not use
 * it from application code.
 */
@NullMarked
package dev.outbox4j.jdbc.internal;

import org.jspecify.annotations.NullMarked;
