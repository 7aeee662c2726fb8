"""Small helpers the Python peers share."""
import time
import uuid

from kubernetes import client


def eventually(check, *, what: str, timeout: float = 30.0, interval: float = 0.2):
    """Polls `check` until it returns something truthy; fails with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            got = check()
            if got:
                return got
        except client.ApiException as e:  # e.g. a 404 before the object appears
            last_error = e
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"
