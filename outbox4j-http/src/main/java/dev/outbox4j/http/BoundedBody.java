package dev.outbox4j.http;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A request body the HTTP client gets only while its delivery's bound has not passed: the client asks for the body
 * when it is about to write it (after the request line and headers), and a body asked for later fails the request
 * instead, so the receiver reads an incomplete request (fewer bytes than its {@code Content-Length}) and acts on
 * nothing.
 *
 * <h2>Why</h2>
 * The transport cancels a request still unanswered at its bound, but a process can be stopped whole (a long GC pause,
 * a frozen VM, {@code SIGSTOP}) with requests still connecting or queued in the client, and resume long after: its
 * timers and the client's own threads then run together, and a request the client writes before the cancellation
 * would deliver a copy after another relay took the entry over and sent its key's next webhook (a late copy
 * overtaking). The bound is read on {@link System#nanoTime()}, which keeps counting while the process is stopped.
 * What remains is a body handed to the client just before the process stopped, written after it resumed.
 *
 * <p>Thread-safe: one body is sent once per subscription.
 */
final class BoundedBody implements HttpRequest.BodyPublisher {
  private final byte[] body;
  private final long deadline;

  /**
   * @param body the bytes to send
   * @param deadline the delivery's bound, on {@link System#nanoTime()}
   */
  BoundedBody(byte[] body, long deadline) {
    this.body = body;
    this.deadline = deadline;
  }

  @Override
  public long contentLength() {
    return body.length;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
    AtomicBoolean over = new AtomicBoolean();
    subscriber.onSubscribe(new Flow.Subscription() {
      @Override
      public void request(long n) {
        if (!over.compareAndSet(false, true)) {
          return;
        }
        if (n <= 0) {
          subscriber.onError(new IllegalArgumentException("a subscriber must ask for at least one item, asked " + n));
        } else if (System.nanoTime() - deadline >= 0) {
          subscriber.onError(new IOException("the request's bound passed before its body was written (the process"
              + " stood still): it is not sent"));
        } else {
          if (body.length > 0) {
            subscriber.onNext(ByteBuffer.wrap(body));
          }
          subscriber.onComplete();
        }
      }

      @Override
      public void cancel() {
        over.set(true);
      }
    });
  }
}
