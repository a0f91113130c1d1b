package dev.outbox4j.kafka.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * A Connect worker's REST API, as an operator (or Strimzi) uses it: create, inspect, pause and resume connectors.
 *
 * <p>Thread-safe.
 */
public final class ConnectRest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final URI base;

  ConnectRest(URI base) {
    this.base = base;
  }

  /** Creates (or replaces) a connector with this configuration. */
  public void putConnector(String name, Map<String, String> config) {
    send("PUT", "connectors/" + name + "/config", JSON.valueToTree(config).toString(), 200, 201);
  }

  /** Deletes the connector. */
  public void delete(String name) {
    send("DELETE", "connectors/" + name, null, 204);
  }

  /** @return the connector's status document */
  public JsonNode status(String name) {
    return tree(send("GET", "connectors/" + name + "/status", null, 200));
  }

  /** @return the answer of the validation endpoint for this configuration */
  JsonNode validate(String connectorClass, Map<String, String> config) {
    return tree(send("PUT", "connector-plugins/" + connectorClass + "/config/validate",
        JSON.valueToTree(config).toString(), 200));
  }

  public void pause(String name) {
    send("PUT", "connectors/" + name + "/pause", null, 202);
  }

  public void resume(String name) {
    send("PUT", "connectors/" + name + "/resume", null, 202);
  }

  /** Stops the connector: its tasks shut down and are not placed again until it is resumed (Connect 3.5+). */
  void stop(String name) {
    send("PUT", "connectors/" + name + "/stop", null, 202, 204);
  }

  /** Restarts one task of the connector, as an operator does for a task in state {@code FAILED}. */
  void restartTask(String name, int task) {
    send("POST", "connectors/" + name + "/tasks/" + task + "/restart", null, 200, 202, 204);
  }

  /**
   * Restarts the connector's tasks that are in state {@code FAILED}.
   *
   * @return how many were restarted
   */
  int restartFailedTasks(String name) {
    int restarted = 0;
    for (JsonNode task : status(name).path("tasks")) {
      if ("FAILED".equals(task.path("state").asText())) {
        restartTask(name, task.path("id").asInt());
        restarted++;
      }
    }
    return restarted;
  }

  /** Waits until the connector and each of this many tasks is in {@code state} ({@code PAUSED}, {@code STOPPED}). */
  public void awaitState(String name, String state, int tasks) {
    Awaitility.await(name + " " + state + " with " + tasks + " tasks").atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
          JsonNode status = status(name);
          int inState = 0;
          for (JsonNode task : status.path("tasks")) {
            inState += state.equals(task.path("state").asText()) ? 1 : 0;
          }
          return state.equals(status.path("connector").path("state").asText()) && inState == tasks
              && status.path("tasks").size() == tasks;
        });
  }

  /** Waits until the connector and this many tasks run. */
  public void awaitRunning(String name, int tasks) {
    Awaitility.await(name + " running with " + tasks + " tasks").atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
          JsonNode status = status(name);
          if (!"RUNNING".equals(status.path("connector").path("state").asText())) {
            return false;
          }
          int running = 0;
          for (JsonNode task : status.path("tasks")) {
            if ("FAILED".equals(task.path("state").asText())) {
              throw new AssertionError("task failed: " + task.path("trace").asText());
            }
            running += "RUNNING".equals(task.path("state").asText()) ? 1 : 0;
          }
          return running == tasks;
        });
  }

  private static JsonNode tree(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalStateException("not JSON: " + body, e);
    }
  }

  private String send(String method, String path, String body, int... expected) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      for (int status : expected) {
        if (response.statusCode() == status) {
          return response.body();
        }
      }
      throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
          + response.body());
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(method + " " + path + " interrupted", e);
    }
  }
}
