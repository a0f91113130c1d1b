package dev.outbox4j.spring.app;

/**
 * An ordinary application event, not marked for the outbox.
 *
 * @param orderId the order
 */
public record OrderNoted(String orderId) {}
