package dev.outbox4j.http;

/** How the HTTP transport signs requests when signing keys are configured. */
public enum SignatureScheme {
  /**
   * Standard Webhooks (the default): {@code webhook-id}, {@code webhook-timestamp} and {@code webhook-signature}
   * headers, {@code v1} HMAC-SHA256 and {@code v1a} Ed25519 signatures (see {@link StandardWebhooks}).
   */
  STANDARD_WEBHOOKS,
  /**
   * outbox4j's own earlier scheme, kept for receivers written against it: {@code Outbox-Timestamp} and
   * {@code Outbox-Signature: sha256=<hex>} (see {@link WebhookSignature}); one secret only, used as UTF-8 text.
   */
  OUTBOX4J
}
