"""The typed client (CoreV1Api, RbacAuthorizationV1Api): create, read, list, replace, patch and delete, with kube's errors."""
import base64

import pytest
from kubernetes import client

from helpers import unique


def test_configmap_lifecycle(api_client, namespace):
    core = client.CoreV1Api(api_client)
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings", labels={"app": "peer"}), data={"mode": "fast"})
    created = core.create_namespaced_config_map(namespace, body)
    assert created.metadata.uid and created.metadata.resource_version
    assert created.metadata.namespace == namespace

    read = core.read_namespaced_config_map("settings", namespace)
    assert read.data == {"mode": "fast"}

    core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="other")))
    labelled = core.list_namespaced_config_map(namespace, label_selector="app=peer")
    assert [cm.metadata.name for cm in labelled.items] == ["settings"]

    read.data["mode"] = "slow"
    replaced = core.replace_namespaced_config_map("settings", namespace, read)
    assert replaced.data == {"mode": "slow"}
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)

    # A dict body goes out as a strategic merge patch; a list as a JSON patch.
    patched = core.patch_namespaced_config_map("settings", namespace, {"data": {"extra": "1"}})
    assert patched.data == {"mode": "slow", "extra": "1"}
    patched = core.patch_namespaced_config_map("settings", namespace, [{"op": "remove", "path": "/data/extra"}])
    assert patched.data == {"mode": "slow"}

    core.delete_namespaced_config_map("settings", namespace)
    with pytest.raises(client.ApiException) as missing:
        core.read_namespaced_config_map("settings", namespace)
    assert missing.value.status == 404
    assert missing.value.reason == "Not Found"


def test_stale_replace_conflicts_and_duplicate_create_is_refused(api_client, namespace):
    core = client.CoreV1Api(api_client)
    first = core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c"), data={"v": "1"}))
    core.patch_namespaced_config_map("c", namespace, {"data": {"v": "2"}})

    first.data["v"] = "stale"
    with pytest.raises(client.ApiException) as conflict:
        core.replace_namespaced_config_map("c", namespace, first)
    assert conflict.value.status == 409
    assert "the object has been modified" in conflict.value.body

    with pytest.raises(client.ApiException) as exists:
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="c")))
    assert exists.value.status == 409
    assert '"reason":"AlreadyExists"' in exists.value.body.replace(" ", "")


def test_invalid_object_is_refused_with_the_field(api_client, namespace):
    core = client.CoreV1Api(api_client)
    with pytest.raises(client.ApiException) as invalid:
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="Not_Valid")))
    assert invalid.value.status == 422
    assert "metadata.name" in invalid.value.body


def test_secret_data_round_trips(api_client, namespace):
    core = client.CoreV1Api(api_client)
    token = base64.b64encode(b"s3cr3t\x00bytes").decode()
    core.create_namespaced_secret(
        namespace,
        client.V1Secret(metadata=client.V1ObjectMeta(name="creds"), type="Opaque", data={"token": token}, string_data={"user": "ada"}),
    )
    secret = core.read_namespaced_secret("creds", namespace)
    assert secret.type == "Opaque"
    assert secret.data["token"] == token
    # stringData is written into data, base64-encoded, and not stored itself.
    assert base64.b64decode(secret.data["user"]) == b"ada"
    assert secret.string_data is None


def test_rbac_role_and_binding(api_client, namespace):
    rbac = client.RbacAuthorizationV1Api(api_client)
    role = client.V1Role(
        metadata=client.V1ObjectMeta(name="reader"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["configmaps"], verbs=["get", "list", "watch"])],
    )
    rbac.create_namespaced_role(namespace, role)
    user = unique("user")
    rbac.create_namespaced_role_binding(
        namespace,
        client.V1RoleBinding(
            metadata=client.V1ObjectMeta(name="reader"),
            role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="reader"),
            subjects=[client.RbacV1Subject(kind="User", name=user, api_group="rbac.authorization.k8s.io")],
        ),
    )
    # The binding grants what the role says: asked through a SubjectAccessReview, as a controller would.
    authz = client.AuthorizationV1Api(api_client)

    def allowed(verb: str) -> bool:
        review = client.V1SubjectAccessReview(
            spec=client.V1SubjectAccessReviewSpec(
                user=user, resource_attributes=client.V1ResourceAttributes(namespace=namespace, verb=verb, resource="configmaps")
            )
        )
        return authz.create_subject_access_review(review).status.allowed

    # As in kcp, RBAC inside a workspace counts only for users who may enter it (verb "access" on "/").
    assert allowed("list") is False
    name = unique("access")
    rbac.create_cluster_role(
        client.V1ClusterRole(metadata=client.V1ObjectMeta(name=name), rules=[client.V1PolicyRule(non_resource_urls=["/"], verbs=["access"])])
    )
    rbac.create_cluster_role_binding(
        client.V1ClusterRoleBinding(
            metadata=client.V1ObjectMeta(name=name),
            role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="ClusterRole", name=name),
            subjects=[client.RbacV1Subject(kind="User", name=user, api_group="rbac.authorization.k8s.io")],
        )
    )
    try:
        assert allowed("list") is True
        assert allowed("delete") is False
    finally:
        rbac.delete_cluster_role_binding(name)
        rbac.delete_cluster_role(name)
