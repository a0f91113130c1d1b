/**
 * The default, JSON, {@link dev.outbox4j.flow.FlowStateCodec}: {@link dev.outbox4j.json.JsonFlowStateCodec}, built on
 * Jackson databind.
 */
@NullMarked
package dev.outbox4j.json;

import org.jspecify.annotations.NullMarked;
