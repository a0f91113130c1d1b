package dev.outbox4j.examples.orders;

import dev.outbox4j.jdbc.inbox.JdbcInbox;
import java.sql.Connection;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bills each placed order once: RabbitMQ may deliver an event twice (the relay delivers at least once), so the inbox
 * records the message id in the same transaction as the invoice, and a second delivery is skipped.
 */
@Component
public class BillingConsumer {
  private static final Logger LOG = LoggerFactory.getLogger(BillingConsumer.class);

  private final JdbcInbox inbox;
  private final DataSource dataSource;
  private final JdbcTemplate jdbc;
  private final JsonMapper json;

  BillingConsumer(JdbcInbox inbox, DataSource dataSource, JdbcTemplate jdbc, JsonMapper json) {
    this.inbox = inbox;
    this.dataSource = dataSource;
    this.jdbc = jdbc;
    this.json = json;
  }

  /**
   * @param message an {@link OrderPlaced} event as RabbitMQ delivered it (message id = the outbox message id)
   */
  @RabbitListener(queues = "${orders.queue}")
  @Transactional
  public void onOrderPlaced(Message message) {
    UUID messageId = UUID.fromString(message.getMessageProperties().getMessageId());
    OrderPlaced event = json.readValue(message.getBody(), OrderPlaced.class);
    Connection connection = DataSourceUtils.getConnection(dataSource);
    try {
      boolean billed = inbox.handleOnce(connection, "billing", messageId, () -> {
        jdbc.update("INSERT INTO boot_invoices (order_id, total_cents) VALUES (?, ?)", event.orderId(),
            event.totalCents());
        return true;
      }).isPresent();
      LOG.info(billed ? "billed order {}" : "order {} was already billed; duplicate skipped", event.orderId());
    } finally {
      DataSourceUtils.releaseConnection(connection, dataSource);
    }
  }
}
