#!/usr/bin/python3
"""A page as a person's browser runs it, read while it runs: headless Chromium opens URL, and an expression is evaluated
in the page every half second (the DevTools protocol over --remote-debugging-pipe: no port, no library) until another
is true or the seconds run out.

    chromium-page.py URL --value EXPR [--until EXPR] [--seconds S]

Prints one line of JSON: {"value": the last value of --value (JSON), "met": whether --until became true,
"after": seconds from the launch to then (or to the end), "error": why the page could not be read (null)}.
The page is then left (navigated to about:blank, so its pagehide handlers run) and the browser closed.
Exit 0 when the page was read (the caller judges the value), 2 when it never could be (no page target, Chromium gone).
The browser runs in its own session and goes with this script however it ends (SIGTERM, SIGKILL), as in
chromium-peer.py, whose helpers it uses."""
import argparse
import fcntl
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("chromium_peer", os.path.join(HERE, "chromium-peer.py"))
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)


class Browser:
    """Chromium with the DevTools protocol on fds 3 (commands in) and 4 (replies and events out), NUL-separated JSON."""

    def __init__(self, chromium, url, profile, log):
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()
        # Moved above 4 first, so that putting one at 3 or 4 in the child cannot overwrite the other.
        commands_read, replies_write = (self.moved_up(fd) for fd in (commands_read, replies_write))

        def child():
            peer.die_with_parent()
            signal.pthread_sigmask(signal.SIG_SETMASK, set())  # a test under ThreadSanitizer blocks most signals
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             f"--user-data-dir={profile}", "--remote-debugging-pipe", "--autoplay-policy=no-user-gesture-required",
             "--disable-features=WebRtcHideLocalIpsWithMdns", url],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=child, pass_fds=(3, 4), start_new_session=True)
        os.close(commands_read)
        os.close(replies_write)
        self.pending = b""
        self.next_id = 0

    @staticmethod
    def moved_up(fd):
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
        os.close(fd)
        return moved

    def call(self, method, params=None, session=None, timeout=10):
        """Sends one command and returns its result; events in between are skipped. Raises RuntimeError on a protocol
        error, TimeoutError when no reply comes."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" not in self.pending:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise TimeoutError(f"no reply to {method}")
                chunk = os.read(self.replies, 65536)
                if not chunk:
                    raise TimeoutError(f"Chromium closed its pipe before answering {method}")
                self.pending += chunk
            raw, self.pending = self.pending.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") != self.next_id:
                continue
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error'].get('message')}")
            return reply.get("result", {})

    def page_session(self, timeout=15):
        """Attaches to the page target (the URL's tab), once Chromium has made it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pages = [t for t in self.call("Target.getTargets")["targetInfos"] if t.get("type") == "page"]
            if pages:
                return self.call("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True})["sessionId"]
            time.sleep(0.2)
        raise TimeoutError(f"no page target within {timeout} s")

    def evaluate(self, session, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("exception", {}).get("description") or "the expression threw")
        return result.get("result", {}).get("value")


def main():
    parser = argparse.ArgumentParser(description="read a page while headless Chromium runs it")
    parser.add_argument("url")
    parser.add_argument("--value", required=True, help="a JavaScript expression whose value (JSON) is reported")
    parser.add_argument("--until", help="a JavaScript expression; reading stops once it is true")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium-page: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    profile = tempfile.mkdtemp(prefix="chromium-page-")
    log = open(os.path.join(profile, "chromium.log"), "w+")
    started = time.monotonic()
    browser = Browser(chromium, args.url, profile, log)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
    result = {"value": None, "met": False, "after": None, "error": None}
    code = 0
    try:
        session = browser.page_session()
        while True:
            try:
                result["value"] = browser.evaluate(session, args.value)
                if args.until and browser.evaluate(session, args.until):
                    result["met"] = True
            except RuntimeError as error:  # the page is still loading, or its script is not there yet
                result["error"] = str(error)
            else:
                result["error"] = None
            if result["met"] or time.monotonic() - started >= args.seconds:
                break
            time.sleep(0.5)
        result["after"] = round(time.monotonic() - started, 3)
        # Left as a person leaves it (its pagehide handlers run: a WHEP viewer DELETEs its session), then closed.
        browser.call("Page.navigate", {"url": "about:blank"}, session=session)
        time.sleep(1)
    except (TimeoutError, OSError) as error:
        log.seek(0)
        result.update(error=f"{error}", chromium=log.read()[-2000:])
        code = 2
    finally:
        peer.stop_browser(browser.process)
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps(result), flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
