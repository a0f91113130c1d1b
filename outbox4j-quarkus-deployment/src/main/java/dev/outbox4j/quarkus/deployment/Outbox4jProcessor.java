package dev.outbox4j.quarkus.deployment;

import dev.outbox4j.quarkus.OutboxEvent;
import dev.outbox4j.quarkus.TransactionalOutbox;
import dev.outbox4j.quarkus.runtime.JsonEventSerializer;
import dev.outbox4j.quarkus.runtime.OpenTelemetryTracing;
import dev.outbox4j.quarkus.runtime.OutboxEventWriter;
import dev.outbox4j.quarkus.runtime.OutboxLivenessCheck;
import dev.outbox4j.quarkus.runtime.OutboxMetersProducer;
import dev.outbox4j.quarkus.runtime.OutboxReadinessCheck;
import dev.outbox4j.quarkus.runtime.Outbox4jProducers;
import dev.outbox4j.quarkus.runtime.Outbox4jRecorder;
import dev.outbox4j.quarkus.runtime.QuarantinedHandler;
import dev.outbox4j.quarkus.runtime.RelayRuntime;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourcePatternsBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.vertx.http.deployment.spi.RouteBuildItem;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The build steps of the outbox4j extension: which beans an application gets (always the store, the writer,
 * {@link TransactionalOutbox}, the relay's runtime and the {@link OutboxEvent} observer; the JSON event serializer with
 * Quarkus Jackson; the health checks with SmallRye Health; the meters with Quarkus Micrometer and
 * {@code outbox4j-micrometer}; trace propagation with Quarkus OpenTelemetry and {@code outbox4j-opentelemetry}; the
 * read-only quarantine listing's route with an HTTP server), which event types are marked for the outbox (checked at
 * build time), and what a native image needs (the migration files as resources, the enums bound from properties and
 * the event types for reflection).
 */
public class Outbox4jProcessor {
  /** The feature name printed at start-up. */
  public static final String FEATURE = "outbox4j";

  /** Creates the processor; called by Quarkus. */
  public Outbox4jProcessor() {}

  @BuildStep
  FeatureBuildItem feature() {
    return new FeatureBuildItem(FEATURE);
  }

  @BuildStep
  AdditionalBeanBuildItem beans() {
    // Unremovable: the relay runs whether or not the application injects anything.
    return AdditionalBeanBuildItem.builder()
        .addBeanClasses(Outbox4jProducers.class, RelayRuntime.class, OutboxEventWriter.class)
        .setUnremovable()
        .build();
  }

  @BuildStep
  void healthChecks(Capabilities capabilities, BuildProducer<AdditionalBeanBuildItem> beans) {
    if (capabilities.isPresent(Capability.SMALLRYE_HEALTH)) {
      beans.produce(AdditionalBeanBuildItem.builder()
          .addBeanClasses(OutboxReadinessCheck.class, OutboxLivenessCheck.class)
          .setUnremovable()
          .build());
    }
  }

  @BuildStep
  void meters(Capabilities capabilities, BuildProducer<AdditionalBeanBuildItem> beans) {
    // quarkus-micrometer provides the metrics capability; the class checks tell it from another metrics extension.
    if (capabilities.isPresent(Capability.METRICS)
        && QuarkusClassLoader.isClassPresentAtRuntime("io.micrometer.core.instrument.MeterRegistry")
        && QuarkusClassLoader.isClassPresentAtRuntime("dev.outbox4j.micrometer.OutboxMetrics")) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(OutboxMetersProducer.class));
    }
  }

  @BuildStep
  void eventSerializer(Capabilities capabilities, BuildProducer<AdditionalBeanBuildItem> beans) {
    if (capabilities.isPresent(Capability.JACKSON)) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(JsonEventSerializer.class));
    }
  }

  @BuildStep
  void tracing(Capabilities capabilities, BuildProducer<AdditionalBeanBuildItem> beans) {
    if (capabilities.isPresent(Capability.OPENTELEMETRY_TRACER)
        && QuarkusClassLoader.isClassPresentAtRuntime("dev.outbox4j.opentelemetry.TracingTransport")) {
      beans.produce(AdditionalBeanBuildItem.unremovableOf(OpenTelemetryTracing.class));
    }
  }

  @BuildStep(onlyIf = HttpServerPresent.class)
  @Record(ExecutionTime.RUNTIME_INIT)
  void quarantineListing(Outbox4jRecorder recorder, BuildProducer<RouteBuildItem> routes) {
    // A management route: under the non-application root (/q/), or on the management interface when that is on.
    routes.produce(RouteBuildItem.newManagementRoute(QuarantinedHandler.PATH)
        .withRequestHandler(recorder.quarantinedHandler())
        .asBlockingRoute()
        .displayOnNotFoundPage("outbox4j: entries waiting for an operator")
        .build());
  }

  /** Whether the application has Quarkus's HTTP server; without it the recorder (which names Vert.x Web) is never made. */
  static final class HttpServerPresent implements BooleanSupplier {
    @Override
    public boolean getAsBoolean() {
      return QuarkusClassLoader.isClassPresentAtRuntime("io.quarkus.vertx.http.runtime.VertxHttpRecorder");
    }
  }

  @BuildStep
  void eventTypes(CombinedIndexBuildItem index, BuildProducer<ReflectiveClassBuildItem> reflective) {
    // Fails the build on an ordering-key property that matches nothing; keeps the types' members in a native image,
    // where Jackson serializes them and the writer reads the ordering key reflectively.
    List<String> types = OutboxEventTypes.find(index.getIndex());
    if (!types.isEmpty()) {
      reflective.produce(ReflectiveClassBuildItem.builder(types.toArray(String[]::new))
          .constructors().methods().fields().build());
    }
  }

  @BuildStep
  NativeImageResourcePatternsBuildItem migrations() {
    // JdbcOutboxStore.migrate() reads db/outbox4j/<dialect>/V*.sql from the class path.
    return NativeImageResourcePatternsBuildItem.builder().includeGlob("db/outbox4j/**").build();
  }

  @BuildStep
  ReflectiveClassBuildItem configuredEnums() {
    // Enums bound from properties by name; listed so a native image keeps their values() and valueOf().
    return ReflectiveClassBuildItem.builder(
            "dev.outbox4j.jdbc.ClaimStrategy", "dev.outbox4j.CloudEventsMapping$Mode",
            "dev.outbox4j.quarkus.WithoutTransaction")
        .methods()
        .build();
  }
}
