"""Watches as the Python client streams them: from a resourceVersion, ended by the server's timeout, typed and dynamic."""
import threading

import pytest
from kubernetes import client, dynamic, watch

from conftest import GADGET_GROUP, GADGET_PLURAL

pytestmark = pytest.mark.watch


def collect(stream, count: int) -> list[tuple[str, str, str]]:
    """(type, name, resourceVersion) of the first `count` events, then stops."""
    events = []
    for event in stream:
        obj = event["object"]
        meta = obj["metadata"] if isinstance(obj, dict) else obj.metadata
        name = meta["name"] if isinstance(meta, dict) else meta.name
        rv = meta["resourceVersion"] if isinstance(meta, dict) else meta.resource_version
        events.append((event["type"], name, rv))
        if len(events) == count:
            break
    return events


def test_watch_from_a_resource_version_replays_what_happened_since(api_client, namespace):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="before")))
    since = core.list_namespaced_config_map(namespace).metadata.resource_version

    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="a"), data={"n": "1"}))
    core.patch_namespaced_config_map("a", namespace, {"data": {"n": "2"}})
    core.delete_namespaced_config_map("before", namespace)

    w = watch.Watch()
    events = collect(w.stream(core.list_namespaced_config_map, namespace, resource_version=since, timeout_seconds=20), 3)
    w.stop()
    assert [(t, n) for t, n, _ in events] == [("ADDED", "a"), ("MODIFIED", "a"), ("DELETED", "before")]
    versions = [int(rv) for _, _, rv in events]
    assert versions == sorted(versions) and versions[0] > int(since)


def test_watch_sees_live_changes_and_ends_at_timeout_seconds(api_client, namespace):
    core = client.CoreV1Api(api_client)
    since = core.list_namespaced_config_map(namespace).metadata.resource_version
    w = watch.Watch()
    stream = w.stream(core.list_namespaced_config_map, namespace, resource_version=since, timeout_seconds=3)

    def writer():
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="live")))

    threading.Timer(0.5, writer).start()
    seen = [(e["type"], e["object"].metadata.name) for e in stream]
    # The stream ended by itself once the server closed the watch after timeoutSeconds.
    assert seen == [("ADDED", "live")]


def test_watch_with_a_label_selector_sees_only_matching_objects(api_client, namespace):
    core = client.CoreV1Api(api_client)
    since = core.list_namespaced_config_map(namespace).metadata.resource_version
    for name, team in (("x", "red"), ("y", "blue"), ("z", "red")):
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"team": team})))
    w = watch.Watch()
    events = collect(
        w.stream(core.list_namespaced_config_map, namespace, label_selector="team=red", resource_version=since, timeout_seconds=20), 2
    )
    w.stop()
    assert [(t, n) for t, n, _ in events] == [("ADDED", "x"), ("ADDED", "z")]


def test_dynamic_client_watch(api_client, namespace):
    dyn = dynamic.DynamicClient(api_client)
    secrets = dyn.resources.get(api_version="v1", kind="Secret")
    since = secrets.get(namespace=namespace).metadata.resourceVersion
    secrets.create(body={"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "w"}}, namespace=namespace)
    secrets.delete(name="w", namespace=namespace)
    watcher = watch.Watch()
    events = collect(secrets.watch(namespace=namespace, resource_version=since, timeout=20, watcher=watcher), 2)
    watcher.stop()
    assert [(t, n) for t, n, _ in events] == [("ADDED", "w"), ("DELETED", "w")]


def test_custom_objects_watch(api_client, namespace, gadget_crd):
    api = client.CustomObjectsApi(api_client)
    args = (GADGET_GROUP, "v1", namespace, GADGET_PLURAL)
    since = api.list_namespaced_custom_object(*args)["metadata"]["resourceVersion"]
    api.create_namespaced_custom_object(*args, {"apiVersion": f"{GADGET_GROUP}/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 1}})
    api.patch_namespaced_custom_object_status(*args, "g", {"status": {"phase": "Ready"}})
    w = watch.Watch()
    events = collect(w.stream(api.list_namespaced_custom_object, *args, resource_version=since, timeout_seconds=20), 2)
    w.stop()
    assert [(t, n) for t, n, _ in events] == [("ADDED", "g"), ("MODIFIED", "g")]
