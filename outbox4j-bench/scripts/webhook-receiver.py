#!/usr/bin/env python3
"""The receiver a new user tried first: Python's ThreadingHTTPServer answering every POST with 200.

usage: webhook-receiver.py PORT keep|close
  keep:  HTTP/1.1, connections kept open between requests
  close: HTTP/1.0 (http.server's default), the connection closed after each answer, no "Connection: close" header

For the bench's http group: -Doutbox4j.bench.webhook.keepalive=http://127.0.0.1:PORT/ (or .close=) in MAVEN_OPTS
points the webhook rows at it instead of the bench's own receiver (docs/benchmarks.md, Webhooks end to end).
"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KEEP = sys.argv[2] == "keep"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1" if KEEP else "HTTP/1.0"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
