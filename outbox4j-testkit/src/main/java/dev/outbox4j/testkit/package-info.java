/**
 * The contract suites (TCK): SPEC.md in executable form. Each store, transport, inbox and flow ledger implementation
 * subclasses the matching abstract suite in a few lines; its test methods are {@code final}, so every implementation
 * runs exactly the same checks. {@link dev.outbox4j.testkit.SettableClock} drives time-based behaviour without
 * sleeping.
 */
@NullMarked
package dev.outbox4j.testkit;

import org.jspecify.annotations.NullMarked;
