"""kopf's peering: two `kopf run --namespace` operators find each other through a KopfPeering object (kopf.dev/v1,
the CRD from kopf's docs), which each keeps its identity in with merge patches; the one of lower priority pauses
while the other runs, and resumes when it has gone and removed itself."""
import pytest
from kubernetes import client

from helpers import eventually, install_crd, kopf_run

pytestmark = pytest.mark.watch

PEERING_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "kopfpeerings.kopf.dev"},
    "spec": {
        "scope": "Namespaced",
        "group": "kopf.dev",
        "names": {"kind": "KopfPeering", "plural": "kopfpeerings", "singular": "kopfpeering"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {"status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                    }
                },
            }
        ],
    },
}


@pytest.fixture(scope="session")
def peering_crd(api_client):
    return install_crd(api_client, PEERING_CRD)


def test_the_lower_priority_operator_pauses_while_the_other_runs(api_client, target, namespace, gadget_crd, peering_crd, tmp_path):
    api = client.CustomObjectsApi(api_client)
    peering = ("kopf.dev", "v1", namespace, "kopfpeerings", "default")
    api.create_namespaced_custom_object(*peering[:4], {"apiVersion": "kopf.dev/v1", "kind": "KopfPeering", "metadata": {"name": "default"}})
    peers = lambda: (api.get_namespaced_custom_object(*peering).get("status") or {})  # noqa: E731

    with kopf_run(target, ["--namespace", namespace, "--peering", "default"], tmp_path / "low.log") as low:
        eventually(lambda: len(peers()) == 1, what="the first operator in the peering's status")
        (first,) = peers().values()
        assert first["priority"] == 0 and first["lifetime"] == 60
        with kopf_run(target, ["--namespace", namespace, "--peering", "default", "--priority", "100"], tmp_path / "high.log"):
            eventually(lambda: sorted(p["priority"] for p in peers().values()) == [0, 100], what="both operators in the peering")
            eventually(lambda: "Pausing operations in favour of" in low.read_text(), what="the first operator pausing")
        # The second removed itself on its way out; the first resumes.
        eventually(lambda: [p["priority"] for p in peers().values()] == [0], what="the second operator gone from the peering")
        eventually(lambda: "Resuming operations after the pause" in low.read_text(), what="the first operator resuming")
    eventually(lambda: peers() == {}, what="the peering empty after both operators stopped")
