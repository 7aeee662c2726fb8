package clientgo

import (
	"context"
	"fmt"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"

	"kcpt/peers/kcptest"
)

// widgetCRD installs a namespaced Widget CRD with status and scale subresources in the workspace of cfg, in an API group of
// its own (CRDs are cluster-scoped: tests sharing root must not share a group), and waits until it is Established.
func widgetCRD(t *testing.T, cfg *rest.Config) schema.GroupVersionResource {
	t.Helper()
	group := fmt.Sprintf("g%s.peers.kcpt.dev", rand.String(6))
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wdg"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
				},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":     {Type: "integer", Minimum: ptrFloat(0)},
							"color":    {Type: "string"},
							"replicas": {Type: "integer"},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"ready":    {Type: "boolean"},
							"replicas": {Type: "integer"},
						}},
					},
				}},
			}},
		},
	}
	client := apiextensionsclient.NewForConfigOrDie(cfg).ApiextensionsV1().CustomResourceDefinitions()
	if _, err := client.Create(t.Context(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating CRD %s: %v", crd.Name, err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), crd.Name, metav1.DeleteOptions{}) })
	kcptest.Eventually(t, 20*time.Second, func() error {
		got, err := client.Get(t.Context(), crd.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("CRD %s not Established: %+v", crd.Name, got.Status.Conditions)
	})
	return schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
}

func ptrFloat(f float64) *float64 { return &f }
