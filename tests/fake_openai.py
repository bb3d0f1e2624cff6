"""A tiny OpenAI-compatible chat server for fault tests: answers from a script of behaviours, counts what it got.

Listens on 127.0.0.1 (ports 18000-18999), in a thread of the test process; ``stop()`` closes it.
Behaviours per request, in order (the last one repeats): ``ok``, ``500``, ``429``, ``400``,
``sleep`` (answers after ``sleep_s``: a client timeout) and ``close`` (drops the connection unanswered).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from gui_models.local_server import free_port


def completion(text: str, prompt_tokens: int = 3, completion_tokens: int = 1) -> dict:
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


class FakeServer:
    def __init__(self, script: list[str], text: str = "ok", sleep_s: float = 2.0) -> None:
        self.script, self.text, self.sleep_s = list(script), text, sleep_s
        self.bodies: list[dict] = []
        self.auth: list[str | None] = []  # the Authorization header of each request, in order
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with fake.lock:
                    n = len(fake.bodies)
                    fake.bodies.append(body)
                    fake.auth.append(self.headers.get("Authorization"))
                    action = fake.script[min(n, len(fake.script) - 1)]
                if action == "close":
                    self.close_connection = True
                    self.connection.close()
                    return
                if action == "sleep":
                    time.sleep(fake.sleep_s)
                status = {"500": 500, "503": 503, "429": 429, "400": 400}.get(action, 200)
                payload = completion(fake.text) if status == 200 else {"error": {"message": f"scripted {status}"}}
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

        self.port = free_port()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def hits(self) -> int:
        return len(self.bodies)

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
