/** outbox4j for Quarkus: build steps. */
package dev.outbox4j.quarkus.deployment;
