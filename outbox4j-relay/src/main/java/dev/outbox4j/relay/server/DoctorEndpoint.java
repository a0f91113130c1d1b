package dev.outbox4j.relay.server;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code GET /api/doctor}: the doctor's findings, checked afresh on each request. Behind the admin token, since the
 * findings show the database's settings, its version and the configuration's weak spots.
 *
 * <p>Thread-safe.
 */
final class DoctorEndpoint {
  private final AdminToken token;
  private final Supplier<Map<String, Object>> doctor;

  /**
   * @param token what the request needs
   * @param doctor runs the checks and answers their JSON form
   */
  DoctorEndpoint(AdminToken token, Supplier<Map<String, Object>> doctor) {
    this.token = token;
    this.doctor = doctor;
  }

  void serve(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestMethod().equals("GET")) {
      exchange.getResponseHeaders().set("Allow", "GET");
      DashboardServer.sendJson(exchange, 405, Map.of("error", "use GET"));
      return;
    }
    switch (token.check(exchange.getRequestHeaders().getFirst("Authorization"))) {
      case MISSING -> {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"outbox4j\"");
        DashboardServer.sendJson(exchange, 401, Map.of("error", "the admin token is required"));
      }
      case WRONG -> DashboardServer.sendJson(exchange, 403, Map.of("error", "the admin token is wrong"));
      case ACCEPTED -> DashboardServer.sendJson(exchange, 200, doctor.get());
    }
  }
}
