"""A kopf operator (gadget_operator.py) as a real `kopf run --standalone --namespace` process against the workspace."""
import pytest
from kubernetes import client

from conftest import GADGET_GROUP, GADGET_PLURAL
from helpers import eventually, kopf_run

pytestmark = pytest.mark.watch

KOPF_FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"


@pytest.fixture
def operator_log(target, namespace, gadget_crd, tmp_path):
    """Runs the operator on the test's namespace; yields its log file. It must stop cleanly on SIGTERM."""
    with kopf_run(target, ["--standalone", "--namespace", namespace], tmp_path / "kopf.log") as log_path:
        yield log_path


def test_create_update_delete_with_finalizer_and_status(api_client, namespace, operator_log):
    api = client.CustomObjectsApi(api_client)
    core = client.CoreV1Api(api_client)
    args = (GADGET_GROUP, "v1", namespace, GADGET_PLURAL)
    created = api.create_namespaced_custom_object(
        *args, {"apiVersion": f"{GADGET_GROUP}/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 1}}
    )
    uid = created["metadata"]["uid"]

    def status(phase: str, size: int):
        def check():
            got = api.get_namespaced_custom_object(*args, "g")
            st = got.get("status", {})
            return got if st.get("phase") == phase and st.get("observedSize") == size else None

        return check

    handled = eventually(status("Created", 1), what="status.phase Created", timeout=60)
    # The create handler's return value, stored by kopf in status under the handler's name.
    assert handled["status"]["created"] == {"parts": "g-parts"}
    # A delete handler makes kopf hold the object with its finalizer.
    assert KOPF_FINALIZER in handled["metadata"]["finalizers"]
    parts = core.read_namespaced_config_map("g-parts", namespace)
    assert parts.data == {"size": "1"}
    [owner] = parts.metadata.owner_references
    assert (owner.kind, owner.name, owner.uid, owner.controller) == ("Gadget", "g", uid, True)

    api.patch_namespaced_custom_object(*args, "g", {"spec": {"size": 4}})
    eventually(status("Updated", 4), what="status.phase Updated", timeout=60)
    assert core.read_namespaced_config_map("g-parts", namespace).data == {"size": "4"}

    # The Event the create handler posted through kopf, about the Gadget.
    def built():
        listed = core.list_namespaced_event(namespace, field_selector="involvedObject.name=g")
        return [e for e in listed.items if e.reason == "Built"]

    [event] = eventually(built, what="the Event Built of g")
    assert (event.message, event.type, event.involved_object.kind, event.involved_object.uid) == ("made ConfigMap g-parts", "Normal", "Gadget", uid)

    api.delete_namespaced_custom_object(*args, "g")

    def gone():
        try:
            api.get_namespaced_custom_object(*args, "g")
            return False
        except client.ApiException as e:
            return e.status == 404

    # Gone only once the delete handler ran and kopf removed its finalizer.
    eventually(gone, what="g deleted after its finalizer was removed", timeout=60)
    assert core.read_namespaced_config_map("gadget-journal", namespace).data == {"g": "deleted"}
