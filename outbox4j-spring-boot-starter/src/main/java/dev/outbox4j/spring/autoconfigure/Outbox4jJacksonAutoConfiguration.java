package dev.outbox4j.spring.autoconfigure;

import dev.outbox4j.spring.OutboxEventSerializer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * Serializes outbox events with the application's Jackson {@link JsonMapper} bean (Spring Boot 4's JSON mapper), so
 * an event's JSON follows the same settings as the application's web responses.
 */
@AutoConfiguration(
    beforeName = "dev.outbox4j.spring.autoconfigure.Outbox4jAutoConfiguration",
    afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(JsonMapper.class)
@ConditionalOnBean(JsonMapper.class)
public class Outbox4jJacksonAutoConfiguration {

  /** Creates the configuration; called by Spring. */
  public Outbox4jJacksonAutoConfiguration() {}

  /**
   * @param mapper the application's JSON mapper
   * @return the event serializer
   */
  @Bean
  @ConditionalOnMissingBean
  public OutboxEventSerializer outbox4jEventSerializer(JsonMapper mapper) {
    return mapper::writeValueAsBytes;
  }
}
