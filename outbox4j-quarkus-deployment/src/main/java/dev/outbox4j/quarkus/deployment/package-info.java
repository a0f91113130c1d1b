/**
 * The build steps of the outbox4j Quarkus extension ({@link dev.outbox4j.quarkus.deployment.Outbox4jProcessor}): run
 * when an application is augmented, never at its run time.
 */
package dev.outbox4j.quarkus.deployment;
