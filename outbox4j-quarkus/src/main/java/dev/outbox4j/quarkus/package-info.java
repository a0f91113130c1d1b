/** outbox4j for Quarkus. */
package dev.outbox4j.quarkus;
