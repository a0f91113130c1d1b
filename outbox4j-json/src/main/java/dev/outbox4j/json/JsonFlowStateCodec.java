package dev.outbox4j.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox4j.OutboxException;
import dev.outbox4j.flow.FlowState;
import dev.outbox4j.flow.FlowStateCodec;
import dev.outbox4j.flow.FlowStateDecodingException;
import dev.outbox4j.flow.FlowStateUnreadableException.Reason;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Stores a {@link FlowState} as one UTF-8 JSON object:
 *
 * <pre>{@code {"flowId":"order-42","revision":3,"schemaVersion":1,"body":{...}}}</pre>
 *
 * <p>The body is mapped by Jackson to and from the body type. The codec reads only the schema versions it was built
 * with (default: 1) and refuses others with {@link Reason#UNKNOWN_SCHEMA_VERSION} before touching the body, so a
 * replica running older code never misreads a body written by newer code. Anything that is not such an object (bad
 * JSON, trailing content, a missing or mistyped field, a body the type cannot hold) is {@link Reason#MALFORMED}.
 * Error messages never quote the content.
 *
 * <p>Immutable and thread-safe (the mapper is copied at build time and never reconfigured).
 *
 * @param <B> the body type
 */
public final class JsonFlowStateCodec<B> implements FlowStateCodec<B> {
  private final ObjectMapper mapper;
  private final ObjectReader treeReader;
  private final JavaType bodyType;
  private final Set<Integer> schemaVersions;

  private JsonFlowStateCodec(Builder<B> builder, JavaType bodyType) {
    this.mapper = builder.mapper;
    this.treeReader = mapper.readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    this.bodyType = bodyType;
    this.schemaVersions = Set.copyOf(builder.schemaVersions);
  }

  /**
   * @param bodyType the body class
   * @param <B> the body type
   * @return a codec with the defaults: a plain Jackson mapper, reading schema version 1
   */
  public static <B> JsonFlowStateCodec<B> of(Class<B> bodyType) {
    return builder(bodyType).build();
  }

  /**
   * @param bodyType the body class
   * @param <B> the body type
   * @return a builder
   */
  public static <B> Builder<B> builder(Class<B> bodyType) {
    Objects.requireNonNull(bodyType, "bodyType");
    return new Builder<>(mapper -> mapper.constructType(bodyType));
  }

  /**
   * @param bodyType the body type, for generic bodies ({@code new TypeReference<Map<String, Integer>>() {}})
   * @param <B> the body type
   * @return a builder
   */
  public static <B> Builder<B> builder(TypeReference<B> bodyType) {
    Objects.requireNonNull(bodyType, "bodyType");
    return new Builder<>(mapper -> mapper.getTypeFactory().constructType(bodyType));
  }

  /** @return the schema versions this codec reads */
  public Set<Integer> schemaVersions() {
    return schemaVersions;
  }

  @Override
  public byte[] encode(FlowState<B> state) {
    Objects.requireNonNull(state, "state");
    try {
      ObjectNode root = mapper.createObjectNode();
      root.put("flowId", state.flowId());
      root.put("revision", state.revision());
      root.put("schemaVersion", state.schemaVersion());
      root.set("body", mapper.valueToTree(state.body()));
      return mapper.writeValueAsBytes(root);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new OutboxException("the body of flow '" + state.flowId() + "' cannot be written as JSON", e);
    }
  }

  @Override
  public FlowState<B> decode(byte[] stored) {
    Objects.requireNonNull(stored, "stored");
    JsonNode root;
    try {
      root = treeReader.readValue(stored);
    } catch (IOException e) {
      throw malformed("the content is not valid JSON (" + e.getClass().getSimpleName() + ")", e);
    }
    if (root == null || !root.isObject()) {
      throw malformed("the content is not a JSON object", null);
    }
    JsonNode flowId = root.get("flowId");
    JsonNode revision = root.get("revision");
    JsonNode schemaVersion = root.get("schemaVersion");
    JsonNode body = root.get("body");
    if (flowId == null || !flowId.isTextual()) {
      throw malformed("the field 'flowId' is missing or not a string", null);
    }
    if (revision == null || !revision.isIntegralNumber() || !revision.canConvertToLong()) {
      throw malformed("the field 'revision' is missing or not an integer", null);
    }
    if (schemaVersion == null || !schemaVersion.isIntegralNumber() || !schemaVersion.canConvertToInt()) {
      throw malformed("the field 'schemaVersion' is missing or not an integer", null);
    }
    if (!schemaVersions.contains(schemaVersion.intValue())) {
      throw new FlowStateDecodingException(Reason.UNKNOWN_SCHEMA_VERSION, "schema version " + schemaVersion.intValue()
          + " is not one this codec reads " + new TreeSet<>(schemaVersions), null);
    }
    if (body == null || body.isNull()) {
      throw malformed("the field 'body' is missing or null", null);
    }
    B value;
    try {
      value = mapper.treeToValue(body, bodyType);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw malformed("the body cannot be read as " + bodyType + " (" + e.getClass().getSimpleName() + ")", e);
    }
    if (value == null) {
      throw malformed("the body reads as null", null);
    }
    try {
      return new FlowState<>(flowId.textValue(), revision.longValue(), schemaVersion.intValue(), value);
    } catch (IllegalArgumentException e) {
      throw malformed(String.valueOf(e.getMessage()), e);
    }
  }

  private static FlowStateDecodingException malformed(String detail, @Nullable Throwable cause) {
    return new FlowStateDecodingException(Reason.MALFORMED, detail, cause);
  }

  /** A way to build the body type once the mapper is known. */
  private interface BodyType {
    JavaType resolve(ObjectMapper mapper);
  }

  /**
   * Configures a {@link JsonFlowStateCodec}. Not thread-safe; {@link #build()} produces an immutable codec.
   *
   * @param <B> the body type
   */
  public static final class Builder<B> {
    private final BodyType bodyType;
    private ObjectMapper mapper = JsonMapper.builder().build();
    private Set<Integer> schemaVersions = Set.of(1);

    private Builder(BodyType bodyType) {
      this.bodyType = bodyType;
    }

    /**
     * @param mapper the mapper for bodies (for example with the JSR-310 module registered); it is copied, so later
     *     changes to it do not affect the codec. Default: a plain {@link JsonMapper}.
     * @return this builder
     */
    public Builder<B> withObjectMapper(ObjectMapper mapper) {
      this.mapper = Objects.requireNonNull(mapper, "mapper").copy();
      return this;
    }

    /**
     * @param versions the schema versions this codec reads, each at least 1; default {@code 1}. Encoding accepts
     *     any version.
     * @return this builder
     * @throws IllegalArgumentException if empty or a version is below 1
     */
    public Builder<B> withSchemaVersions(int... versions) {
      if (versions.length == 0) {
        throw new IllegalArgumentException("schemaVersions must not be empty");
      }
      for (int version : versions) {
        if (version < 1) {
          throw new IllegalArgumentException("schemaVersions must be at least 1, found " + version);
        }
      }
      this.schemaVersions = Set.copyOf(Arrays.stream(versions).boxed().toList());
      return this;
    }

    /** @return the codec */
    public JsonFlowStateCodec<B> build() {
      return new JsonFlowStateCodec<>(this, bodyType.resolve(mapper));
    }
  }
}
