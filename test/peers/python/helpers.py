"""Small helpers the Python peers share."""
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

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


def install_crd(api_client, crd: dict) -> str:
    """Creates the CRD (already there is fine) and waits until it is Established; its name."""
    ext = client.ApiextensionsV1Api(api_client)
    name = crd["metadata"]["name"]
    try:
        ext.create_custom_resource_definition(crd)
    except client.ApiException as e:
        if e.status != 409:
            raise

    def established():
        got = ext.read_custom_resource_definition(name)
        return any(c.type == "Established" and c.status == "True" for c in (got.status.conditions or []))

    eventually(established, what=f"CRD {name} Established")
    return name


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@contextlib.contextmanager
def kopf_run(target, args: list[str], log_path: Path):
    """`kopf run <args> gadget_operator.py` against the target's workspace; yields its log file. The operator must
    stay up until the block ends and then stop cleanly on SIGTERM, with no error in its log."""
    kopf = Path(sys.executable).parent / "kopf"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [str(kopf), "run", *args, str(Path(__file__).parent / "gadget_operator.py")],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "KUBECONFIG": target.kubeconfig},
        )
        try:
            yield log_path
            assert proc.poll() is None, f"kopf exited early ({proc.returncode}):\n{log_path.read_text()}"
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise AssertionError(f"kopf did not stop within 30 s of SIGTERM:\n{log_path.read_text()}")
    text = log_path.read_text()
    assert proc.returncode == 0, f"kopf exited with {proc.returncode}:\n{text}"
    assert "Traceback" not in text and " ERROR " not in text, text
