package dev.outbox4j.quarkus.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox4j.quarkus.OutboxEventSerializer;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The default {@link OutboxEventSerializer}: JSON by the application's Jackson {@link ObjectMapper} (the one
 * {@code quarkus-jackson} produces, with the application's {@code ObjectMapperCustomizer}s applied). A
 * {@code @DefaultBean}: an {@link OutboxEventSerializer} bean of the application's replaces it.
 *
 * <p>Registered when the application has {@code quarkus-jackson}. Thread-safe.
 */
@Singleton
public class JsonEventSerializer {
  /** Creates the producer; called by CDI. */
  public JsonEventSerializer() {}

  /**
   * @param json the application's mapper
   * @return the serializer; a failure names the event's type
   */
  @Produces
  @Singleton
  @DefaultBean
  public OutboxEventSerializer outbox4jEventSerializer(ObjectMapper json) {
    return event -> {
      try {
        return json.writeValueAsBytes(event);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("cannot serialize the outbox event " + event.getClass().getName()
            + " as JSON: " + e.getOriginalMessage(), e);
      }
    };
  }
}
