/**
 * Spring Modulith's externalized events through the outbox.
 *
 * <p>A Modulith application says which events leave it ({@code @Externalized}, or its own
 * {@code EventExternalizationConfiguration} bean): for each such event its routing target, its key and how to map it.
 * {@link dev.outbox4j.spring.modulith.ModulithEventWriter} reads that configuration and writes each such event to the
 * outbox in the transaction that published it; outbox4j's relay then delivers it (destination = the routing target,
 * ordering key = the routing key). Modulith's own externalizers, which send after the commit from its event
 * publication registry, must be switched off: the auto-configuration refuses to start beside one.
 */
@NullMarked
package dev.outbox4j.spring.modulith;

import org.jspecify.annotations.NullMarked;
