/**
 * The command line (picocli): demo, run, migrate, status, quarantined, requeue, discard, purge, and the exit codes of {@link dev.outbox4j.relay.cli.ExitCodes}.
 */
@NullMarked
package dev.outbox4j.relay.cli;

import org.jspecify.annotations.NullMarked;
