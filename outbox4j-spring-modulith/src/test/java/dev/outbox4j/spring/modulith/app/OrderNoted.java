package dev.outbox4j.spring.modulith.app;

/**
 * Not externalized: handled inside the application by {@link NotesListener} through Modulith's publication registry.
 *
 * @param orderId the order
 */
public record OrderNoted(String orderId) {}
