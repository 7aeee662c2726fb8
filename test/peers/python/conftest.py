"""
Fixtures of the Python peers. test/peers/python.test.ts starts `kcpt start`, writes one kubeconfig per workspace (its
current context's server is the workspace's URL, `https://host:port/clusters/<path>`, as `kcpt ws use` writes it) and
runs pytest with KCPT_PEER_TARGETS, a JSON list of {"id": "root", "path": "root", "kubeconfig": "/…"}. Every test
runs once per workspace; each makes its own namespace. KCPT_PEER_REPORT names a JSON file that gets every test's
outcome (the vitest file turns them into one case each).
"""
import json
import os
from dataclasses import dataclass

import pytest
from kubernetes import client, config as kubeconfig

from helpers import install_crd


@dataclass(frozen=True)
class Target:
    id: str
    path: str
    kubeconfig: str


def _targets() -> list[Target]:
    raw = os.environ.get("KCPT_PEER_TARGETS")
    if not raw:
        raise pytest.UsageError("KCPT_PEER_TARGETS is not set: the Python peers run from test/peers/python.test.ts")
    return [Target(**t) for t in json.loads(raw)]


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        targets = _targets()
        metafunc.parametrize("target", targets, ids=[t.id for t in targets], scope="session")


_report: dict[str, dict] = {}


def pytest_runtest_logreport(report):
    """Keeps the worst outcome of a test's setup, call and teardown, with the failure text."""
    entry = _report.setdefault(report.nodeid, {"outcome": "passed", "message": ""})
    if report.failed:
        entry["outcome"] = "failed"
        entry["message"] += f"[{report.when}] {report.longreprtext}\n"
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        entry["message"] += getattr(report, "wasxfail", "") or str(report.longrepr[-1] if report.longrepr else "")
    elif report.passed and hasattr(report, "wasxfail"):
        entry["outcome"] = "xpassed"
        entry["message"] += f"passed although marked to wait for: {report.wasxfail}"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("KCPT_PEER_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(_report, f)


@pytest.fixture(scope="session")
def api_client(target: Target) -> client.ApiClient:
    """An ApiClient from the workspace's kubeconfig, the way a user points the client at a workspace."""
    return kubeconfig.new_client_from_config(config_file=target.kubeconfig)


@pytest.fixture
def namespace(api_client: client.ApiClient) -> str:
    """A fresh namespace for one test, deleted afterwards."""
    core = client.CoreV1Api(api_client)
    ns = core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(generate_name="py-")))
    name = ns.metadata.name
    yield name
    core.delete_namespace(name)


GADGET_GROUP = "peers.kcpt.io"
GADGET_PLURAL = "gadgets"

GADGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"{GADGET_PLURAL}.{GADGET_GROUP}"},
    "spec": {
        "group": GADGET_GROUP,
        "names": {"kind": "Gadget", "listKind": "GadgetList", "plural": GADGET_PLURAL, "singular": "gadget"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["size"],
                                "properties": {
                                    "size": {"type": "integer", "minimum": 1},
                                    "color": {"type": "string", "default": "grey"},
                                },
                            },
                            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                        },
                    }
                },
            }
        ],
    },
}


@pytest.fixture(scope="session")
def gadget_crd(api_client: client.ApiClient) -> str:
    """The Gadget CRD in the workspace, Established (created once per workspace)."""
    return install_crd(api_client, GADGET_CRD)
