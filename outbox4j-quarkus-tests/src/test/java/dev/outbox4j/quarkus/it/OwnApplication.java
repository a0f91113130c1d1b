package dev.outbox4j.quarkus.it;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * A test profile that gives its test classes an application of their own, booted after {@link OutboxExtensionTest}'s:
 * that one ends by closing its relay (the graceful shutdown test), and these classes need a running one.
 */
public class OwnApplication implements QuarkusTestProfile {}
