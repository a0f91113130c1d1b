/**
 * What implementers touch: {@link dev.outbox4j.spi.OutboxStore} (the claim face the relay uses and the entry face
 * tools use, over the same entries) and {@link dev.outbox4j.spi.Transport} (how a message reaches a broker).
 *
 * <p>Transports read their configuration through {@link dev.outbox4j.spi.TransportProperties} (where any key may be
 * given as {@code <key>-file}, read by {@link dev.outbox4j.spi.SecretFile}) and share one way to speak TLS:
 * {@link dev.outbox4j.spi.TlsSettings} (trust store, client certificate, hostname verification; PEM or PKCS#12).
 *
 * <p>Every implementation proves itself by subclassing the contract suites in {@code outbox4j-testkit}.
 */
@NullMarked
package dev.outbox4j.spi;

import org.jspecify.annotations.NullMarked;
