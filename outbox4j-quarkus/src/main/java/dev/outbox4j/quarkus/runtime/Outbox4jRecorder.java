package dev.outbox4j.quarkus.runtime;

import io.quarkus.runtime.annotations.Recorder;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** Creates at run time what the build steps hand to other extensions: the handler of the quarantine listing. */
@Recorder
public class Outbox4jRecorder {
  /** Creates the recorder; called by Quarkus. */
  public Outbox4jRecorder() {}

  /** @return the handler of {@code GET /q/outbox4j/quarantined} */
  public Handler<RoutingContext> quarantinedHandler() {
    return new QuarantinedHandler();
  }
}
