package dev.outbox4j.spring.modulith.app;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.modulith.events.ApplicationModuleListener;
import org.springframework.stereotype.Component;

/** An application module listener: what Modulith delivers itself, after the commit, from its registry. */
@Component
public class NotesListener {
  private final Queue<String> noted = new ConcurrentLinkedQueue<>();

  @ApplicationModuleListener
  void on(OrderNoted event) {
    noted.add(event.orderId());
  }

  /** @return the order ids noted so far */
  public Queue<String> noted() {
    return noted;
  }
}
