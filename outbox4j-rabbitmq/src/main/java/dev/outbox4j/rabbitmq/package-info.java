/**
 * The RabbitMQ transport: {@link dev.outbox4j.rabbitmq.RabbitMqTransport} publishes each message persistently and
 * mandatorily to an exchange and routing key ({@link dev.outbox4j.rabbitmq.AmqpAddress}) and reports success only on
 * the broker's publisher confirm. See {@code docs/transport-rabbitmq.md}.
 */
@NullMarked
package dev.outbox4j.rabbitmq;

import org.jspecify.annotations.NullMarked;
