"""
A kopf operator for Gadgets (peers.kcpt.io/v1), run by test_kopf_operator.py as a real `kopf run` process.
Create: a ConfigMap `<name>-parts` owned by the Gadget, an Event, status.phase Created. Update of spec.size: the ConfigMap
follows, status.phase Updated. Delete (kopf holds the Gadget with its finalizer meanwhile): a line in the ConfigMap
`gadget-journal`, which the Gadget does not own, so the test can see the handler ran.
"""
import kopf
from kubernetes import client, config

config.load_kube_config()
core = client.CoreV1Api()


@kopf.on.startup()
def configure(settings: kopf.OperatorSettings, **_):
    # Short waits between retries and watches, so a test does not sit through kopf's defaults.
    settings.watching.server_timeout = 30
    settings.watching.client_timeout = 40


@kopf.on.create("peers.kcpt.io", "v1", "gadgets")
def created(spec, name, namespace, body, patch, **_):
    parts = {"metadata": {"name": f"{name}-parts"}, "data": {"size": str(spec["size"])}}
    kopf.adopt(parts, owner=body)
    core.create_namespaced_config_map(namespace, parts)
    kopf.info(body, reason="Built", message=f"made ConfigMap {parts['metadata']['name']}")
    patch.status["phase"] = "Created"
    patch.status["observedSize"] = spec["size"]
    return {"parts": parts["metadata"]["name"]}


@kopf.on.update("peers.kcpt.io", "v1", "gadgets", field="spec.size")
def resized(new, name, namespace, patch, **_):
    core.patch_namespaced_config_map(f"{name}-parts", namespace, {"data": {"size": str(new)}})
    patch.status["phase"] = "Updated"
    patch.status["observedSize"] = new


@kopf.on.delete("peers.kcpt.io", "v1", "gadgets")
def deleted(name, namespace, **_):
    journal = "gadget-journal"
    try:
        core.patch_namespaced_config_map(journal, namespace, {"data": {name: "deleted"}})
    except client.ApiException as e:
        if e.status != 404:
            raise
        core.create_namespaced_config_map(namespace, {"metadata": {"name": journal}, "data": {name: "deleted"}})
