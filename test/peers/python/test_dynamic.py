"""The dynamic client: discovery of what the workspace serves, CRUD on unstructured objects, server-side apply."""
import json

import pytest
from kubernetes import client, dynamic
from kubernetes.dynamic.exceptions import ConflictError, NotFoundError, ResourceNotFoundError


def test_discovery_finds_core_kcp_and_custom_resources(api_client, gadget_crd):
    dyn = dynamic.DynamicClient(api_client)
    configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
    assert configmaps.namespaced and configmaps.name == "configmaps"
    workspaces = dyn.resources.get(api_version="tenancy.kcp.io/v1alpha1", kind="Workspace")
    assert workspaces.namespaced is False
    gadgets = dyn.resources.get(api_version="peers.kcpt.io/v1", kind="Gadget")
    assert gadgets.name == "gadgets"
    assert gadgets.subresources["status"].name == "gadgets/status"
    # What kcp does not serve is not there (a workspace is not a full cluster).
    with pytest.raises(ResourceNotFoundError):
        dyn.resources.get(api_version="apps/v1", kind="Deployment")


def test_unstructured_crud(api_client, namespace):
    dyn = dynamic.DynamicClient(api_client)
    secrets = dyn.resources.get(api_version="v1", kind="Secret")
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "dyn", "labels": {"tier": "a"}}, "stringData": {"k": "v"}}
    created = secrets.create(body=body, namespace=namespace)
    assert created.metadata.name == "dyn" and created.data.k == "dg=="

    assert [s.metadata.name for s in secrets.get(namespace=namespace, label_selector="tier=a").items] == ["dyn"]
    patched = secrets.patch(
        name="dyn", namespace=namespace, body={"metadata": {"labels": {"tier": "b"}}}, content_type="application/merge-patch+json"
    )
    assert patched.metadata.labels.tier == "b"

    stale = created.to_dict()
    stale["metadata"]["labels"] = {"tier": "stale"}
    with pytest.raises(ConflictError):
        secrets.replace(body=stale, namespace=namespace)

    secrets.delete(name="dyn", namespace=namespace)
    with pytest.raises(NotFoundError):
        secrets.get(name="dyn", namespace=namespace)


def test_server_side_apply_owns_fields(api_client, namespace):
    dyn = dynamic.DynamicClient(api_client)
    configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": namespace}, "data": {"a": "1"}}
    applied = configmaps.server_side_apply(body=manifest, namespace=namespace, field_manager="peer-a")
    assert applied.data.a == "1"
    managers = {m.manager: m.operation for m in applied.metadata.managedFields}
    assert managers == {"peer-a": "Apply"}

    # Another manager changing a field peer-a owns conflicts; with force it takes the field over.
    other = {**manifest, "data": {"a": "2"}}
    with pytest.raises(ConflictError) as conflict:
        configmaps.server_side_apply(body=other, namespace=namespace, field_manager="peer-b")
    assert conflict.value.status == 409
    assert json.loads(conflict.value.body)["message"] == 'Apply failed with 1 conflict: conflict with "peer-a": .data.a'
    forced = configmaps.server_side_apply(body=other, namespace=namespace, field_manager="peer-b", force_conflicts=True)
    assert forced.data.a == "2"
    assert {m.manager for m in forced.metadata.managedFields} == {"peer-b"}


def test_custom_resources_through_the_dynamic_client(api_client, namespace, gadget_crd):
    dyn = dynamic.DynamicClient(api_client)
    gadgets = dyn.resources.get(api_version="peers.kcpt.io/v1", kind="Gadget")
    made = gadgets.create(
        body={"apiVersion": "peers.kcpt.io/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"size": 3}}, namespace=namespace
    )
    # The CRD's default is filled in by the server.
    assert made.spec.color == "grey"
    status = gadgets.status.patch(
        name="g", namespace=namespace, body={"status": {"ready": True}}, content_type="application/merge-patch+json"
    )
    assert status.status.ready is True
    with pytest.raises(client.ApiException) as invalid:
        gadgets.create(
            body={"apiVersion": "peers.kcpt.io/v1", "kind": "Gadget", "metadata": {"name": "bad"}, "spec": {"size": 0}}, namespace=namespace
        )
    assert invalid.value.status == 422


def test_errors_read_as_kube_status_messages(api_client, namespace):
    # The dynamic client shows a Status's message only when the Content-Type is exactly kube's application/json.
    dyn = dynamic.DynamicClient(api_client)
    configmaps = dyn.resources.get(api_version="v1", kind="ConfigMap")
    with pytest.raises(NotFoundError) as missing:
        configmaps.get(name="absent", namespace=namespace)
    assert missing.value.headers["Content-Type"] == "application/json"
    assert missing.value.summary() == 'configmaps "absent" not found'


def test_a_float_for_an_int_field_is_refused_as_go_decodes_it(api_client, namespace):
    """A dict body with 15.0 where the kind has an int32 (Python's json writes a float so): kube's Go decoding takes
    no `15.0` for an int, a 400 naming the field, on create and on replace; 15 is fine."""
    dyn = dynamic.DynamicClient(api_client)
    leases = dyn.resources.get(api_version="coordination.k8s.io/v1", kind="Lease")
    body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "holder"}, "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15.0}}
    with pytest.raises(client.ApiException) as refused:
        leases.create(body=body, namespace=namespace)
    assert refused.value.status == 400
    assert json.loads(refused.value.body)["message"] == (
        'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number 15.0 '
        "into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32"
    )
    with pytest.raises(NotFoundError):
        leases.get(name="holder", namespace=namespace)

    body["spec"]["leaseDurationSeconds"] = 15
    created = leases.create(body=body, namespace=namespace).to_dict()
    assert created["spec"]["leaseDurationSeconds"] == 15
    created["spec"]["leaseDurationSeconds"] = 3e1
    with pytest.raises(client.ApiException) as replaced:
        leases.replace(body=created, namespace=namespace)
    assert replaced.value.status == 400
    assert "cannot unmarshal number 30.0 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32" in replaced.value.body
    assert leases.get(name="holder", namespace=namespace).spec.leaseDurationSeconds == 15
