"""A small HTTP server whose every request costs CPU time, for the examples
of `throttlebench latency --target ... --serve`: python3's own http.server,
keep-alive (HTTP/1.1), a thread per connection, each GET spending --work
milliseconds of its thread's CPU time (time.thread_time, so that time spent
throttled is not counted as work done).

    python3 docs/examples/cpu_server.py PORT [WORK_MS]
"""
import http.server
import sys
import time

PORT = int(sys.argv[1])
WORK = float(sys.argv[2] if len(sys.argv) > 2 else 5) / 1000


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        start, x = time.thread_time(), 1
        while time.thread_time() - start < WORK:
            for _ in range(200):
                x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
