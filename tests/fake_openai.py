"""A tiny OpenAI-compatible chat server for fault tests: answers from a script of behaviours, counts what it got.

Listens on 127.0.0.1 on a port the system picks (port 0: pytest-xdist workers never collide), in a thread of the test
process; ``stop()`` closes it.
Behaviours per request, in order (the last one repeats): ``ok``, ``500``, ``429``, ``400``, ``truncated`` (HTTP 200, a
cut JSON body), ``toolcall`` (a tool call and no text), ``manychoices`` (a 17 MB answer of 200,000 choices),
``sleep`` (answers after ``sleep_s``: a client timeout), ``close`` (drops the connection unanswered), ``drip`` (one
byte a second), ``302``/``307`` (to ``redirect_to``), ``nullcontent`` (``content: null``, no tool call) and the
bad HTTP 200 answers of ``BAD_200``. ``GET .../models`` reports ``models``; ``headers`` keeps every request's headers.
``behave(body) -> action or None`` picks a request's behaviour from its body (per document); ``retry_after``
is the ``Retry-After`` header of ``429``. ``reply(body) -> str``, when given, writes each ``ok`` answer from the request (a scripted agent).
``reasoning`` (a text): the server reasons like a thinking model (Qwen3 under vLLM) when a request's
``chat_template_kwargs`` ask for thinking (``enable_thinking`` true, or absent and ``think_by_default``): it writes
``<think>`` + reasoning + ``</think>`` + a blank line + the answer, one token per whitespace-separated word, cut at the
request's ``max_tokens`` (``finish_reason: length``), applying any ``stop`` it is sent to the whole text as vLLM does;
``usage.completion_tokens_details.reasoning_tokens`` says how many tokens it reasoned.
``keep_bodies=False`` (benchmarks: thousands of multi-megabyte bodies) keeps no body and, without ``reply``, parses
none; ``times`` holds every POST's arrival (``time.monotonic()``) and ``posts`` their count either way.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(text: str, prompt_tokens: int = 3, completion_tokens: int = 1) -> dict:
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


# Bad answers with HTTP 200 (a proxy's error object, an empty or null choice list).
BAD_200 = {"empty": {"id": "c", "object": "chat.completion", "choices": []},
           "error200": {"error": {"message": "upstream overloaded"}},
           "nullchoice": {"id": "c", "object": "chat.completion", "choices": [None]}}
# A tool call and no text: an answer, but not one a GUI task can read.
TOOL_CALL = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
             "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                 "role": "assistant", "content": None,
                 "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "click", "arguments": "{}"}}]}}]}


def thinking_completion(reasoning: str, answer: str, body: dict) -> dict:
    """A thinking model's answer to ``body`` (see the module docstring): one token per word, cut at ``max_tokens``."""
    think = ["<think>", *reasoning.split(), "</think>"]
    words = think + answer.split()
    budget = int(body.get("max_tokens") or 16)
    kept = words[:budget]
    text = " ".join(kept[:len(think)]) + ("\n\n" + " ".join(kept[len(think):]) if len(kept) > len(think) else "")
    stops = body.get("stop") or []
    for stop in [stops] if isinstance(stops, str) else stops:
        if stop and stop in text:
            text = text.split(stop, 1)[0]
    out = completion(text, completion_tokens=len(kept))
    out["choices"][0]["finish_reason"] = "length" if len(words) > budget else "stop"
    out["usage"]["completion_tokens_details"] = {"reasoning_tokens": min(len(think), len(kept))}
    return out


def many_choices(n: int = 200_000) -> bytes:
    """A 17 MB answer: ``n`` choices (issue 37)."""
    choice = {"index": 0, "message": {"role": "assistant", "content": "B"}, "finish_reason": "stop", "logprobs": None}
    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice] * n}).encode()


class FakeServer:
    def __init__(self, script: list[str], text: str = "ok", sleep_s: float = 2.0,
                 reply: Callable[[dict], str] | None = None, keep_bodies: bool = True,
                 behave: Callable[[dict], str | None] | None = None) -> None:
        self.script, self.text, self.sleep_s, self.reply = list(script), text, sleep_s, reply
        self.behave = behave  # behave(body) -> an action for this request (None: the script's), e.g. per document
        self.retry_after = ""  # the Retry-After header of ``429`` answers (none when empty)
        self.keep_bodies = keep_bodies
        self.times: list[float] = []  # arrival of every POST (time.monotonic())
        self.redirect_to = ""  # where ``307``/``302`` send the client
        self.reasoning: str | None = None  # set: answers like a thinking model (module docstring)
        self.think_by_default = True
        self.stopped = threading.Event()
        self.bodies: list[dict] = []
        self.headers: list[dict[str, str]] = []  # every request's headers (GET included), to check what keys were sent
        self.models = [{"id": "m", "object": "model", "root": "/ckpt/a"}]  # what GET /v1/models reports
        self.auth: list[str | None] = []  # the Authorization header of each request, in order
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                with fake.lock:
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                data = json.dumps({"object": "list", "data": fake.models}).encode()
                self.send_response(200 if self.path.rstrip("/").endswith("/models") else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                with fake.lock:
                    fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                arrived = time.monotonic()
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                wanted = fake.keep_bodies or fake.reply is not None or fake.behave is not None
                body = json.loads(raw or b"{}") if wanted else {}
                with fake.lock:
                    n = len(fake.times)
                    fake.times.append(arrived)
                    if fake.keep_bodies:
                        fake.bodies.append(body)
                        fake.auth.append(self.headers.get("Authorization"))
                    action = fake.script[min(n, len(fake.script) - 1)]
                if fake.behave is not None:
                    action = fake.behave(body) or action
                if action == "close":
                    self.close_connection = True
                    self.connection.close()
                    return
                if action == "sleep":
                    time.sleep(fake.sleep_s)
                if action in ("302", "307"):
                    self.send_response(int(action))
                    self.send_header("Location", fake.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if action == "drip":  # headers at once, then one byte a second: a read timeout never fires
                    data = json.dumps(completion(fake.text + " " * 4000)).encode()
                    try:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        for b in data:
                            if fake.stopped.wait(1.0):
                                return
                            self.wfile.write(bytes([b]))
                            self.wfile.flush()
                    except OSError:
                        pass
                    return
                status = {"500": 500, "503": 503, "429": 429, "400": 400, "401": 401}.get(action, 200)
                answer = fake.reply(body) if fake.reply is not None and status == 200 else fake.text
                payload = completion(answer) if status == 200 else {"error": {"message": f"scripted {status}"}}
                wants = (body.get("chat_template_kwargs") or {}).get("enable_thinking", fake.think_by_default)
                if status == 200 and fake.reasoning is not None and wants:
                    payload = thinking_completion(fake.reasoning, answer, body)
                if action in BAD_200:
                    payload = BAD_200[action]
                if action == "nullcontent":  # no text and no tool call
                    payload = completion("")
                    payload["choices"][0]["message"]["content"] = None
                if action == "toolcall":
                    payload = TOOL_CALL
                data = json.dumps(payload).encode()
                if action == "truncated":  # HTTP 200, a JSON body cut in the middle (its length as sent)
                    data = data[: len(data) // 2]
                if action == "manychoices":
                    data = many_choices()
                try:
                    self.send_response(status)
                    if status == 429 and fake.retry_after:
                        self.send_header("Retry-After", fake.retry_after)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # bound at once: no other process can take it first
        self.port = self.httpd.server_address[1]
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def hits(self) -> int:
        return len(self.times)

    def saw(self, secret: str) -> bool:
        """Whether ``secret`` appeared in any header or body the server received."""
        return any(secret in json.dumps(x) for x in [*self.headers, *self.bodies])

    def stop(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def last_text(body: dict) -> str:
    """The text of the last user message of a chat request body (string content or content parts)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")
