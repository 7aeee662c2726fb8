"""CustomObjectsApi on a CRD the test installs in the workspace (ApiextensionsV1Api): CRUD, status subresource, validation."""
import pytest
from kubernetes import client

from conftest import GADGET_GROUP, GADGET_PLURAL


def gadget(name: str, size: int) -> dict:
    return {"apiVersion": f"{GADGET_GROUP}/v1", "kind": "Gadget", "metadata": {"name": name}, "spec": {"size": size}}


def test_custom_object_lifecycle(api_client, namespace, gadget_crd):
    api = client.CustomObjectsApi(api_client)
    args = (GADGET_GROUP, "v1", namespace, GADGET_PLURAL)
    created = api.create_namespaced_custom_object(*args, gadget("one", 1))
    assert created["spec"] == {"size": 1, "color": "grey"}
    assert created["metadata"]["generation"] == 1
    api.create_namespaced_custom_object(*args, gadget("two", 2))

    listed = api.list_namespaced_custom_object(*args)
    assert sorted(i["metadata"]["name"] for i in listed["items"]) == ["one", "two"]
    assert listed["kind"] == "GadgetList"

    got = api.get_namespaced_custom_object(*args, "one")
    got["spec"]["size"] = 5
    replaced = api.replace_namespaced_custom_object(*args, "one", got)
    assert replaced["spec"]["size"] == 5 and replaced["metadata"]["generation"] == 2

    # CustomObjectsApi sends a dict as a merge patch.
    patched = api.patch_namespaced_custom_object(*args, "one", {"spec": {"color": "red"}})
    assert patched["spec"] == {"size": 5, "color": "red"}

    api.delete_namespaced_custom_object(*args, "two")
    assert [i["metadata"]["name"] for i in api.list_namespaced_custom_object(*args)["items"]] == ["one"]


def test_status_subresource_is_separate_from_spec(api_client, namespace, gadget_crd):
    api = client.CustomObjectsApi(api_client)
    args = (GADGET_GROUP, "v1", namespace, GADGET_PLURAL)
    api.create_namespaced_custom_object(*args, gadget("s", 1))

    # Through /status only status changes; the generation stays.
    with_status = api.patch_namespaced_custom_object_status(*args, "s", {"status": {"phase": "Ready"}, "spec": {"size": 9}})
    assert with_status["status"] == {"phase": "Ready"}
    assert with_status["spec"]["size"] == 1
    assert with_status["metadata"]["generation"] == 1
    # Through the main resource status is kept as it was.
    main = api.patch_namespaced_custom_object(*args, "s", {"status": {"phase": "Gone"}, "spec": {"size": 2}})
    assert main["status"] == {"phase": "Ready"}
    assert main["spec"]["size"] == 2
    assert api.get_namespaced_custom_object_status(*args, "s")["status"] == {"phase": "Ready"}


def test_schema_validation_answers_422_with_the_field(api_client, namespace, gadget_crd):
    api = client.CustomObjectsApi(api_client)
    args = (GADGET_GROUP, "v1", namespace, GADGET_PLURAL)
    with pytest.raises(client.ApiException) as too_small:
        api.create_namespaced_custom_object(*args, gadget("small", 0))
    assert too_small.value.status == 422
    assert "spec.size" in too_small.value.body
    with pytest.raises(client.ApiException) as missing:
        api.create_namespaced_custom_object(*args, {**gadget("none", 1), "spec": {}})
    assert missing.value.status == 422
    assert "spec.size: Required value" in missing.value.body


def test_replace_without_resource_version_is_refused(api_client, namespace, gadget_crd):
    # Custom resources do not allow an unconditional update: kube answers 422 "must be specified for an update".
    api = client.CustomObjectsApi(api_client)
    args = (GADGET_GROUP, "v1", namespace, GADGET_PLURAL)
    api.create_namespaced_custom_object(*args, gadget("r", 1))
    with pytest.raises(client.ApiException) as refused:
        api.replace_namespaced_custom_object(*args, "r", gadget("r", 2))
    assert refused.value.status == 422
    assert "metadata.resourceVersion" in refused.value.body
    assert api.get_namespaced_custom_object(*args, "r")["spec"]["size"] == 1


def test_cluster_scoped_kcp_objects_through_custom_objects(api_client, target):
    # kcp's own APIs are custom objects to the client: the workspace's LogicalCluster names its path.
    api = client.CustomObjectsApi(api_client)
    cluster = api.get_cluster_custom_object("core.kcp.io", "v1alpha1", "logicalclusters", "cluster")
    # root's carries no kcp.io/path (kcp reads a missing one as the cluster name, "root").
    assert cluster["metadata"]["annotations"].get("kcp.io/path", "root") == target.path
    assert cluster["status"]["phase"] == "Ready"
