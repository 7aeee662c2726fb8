// Command protobuf-golden writes the golden file of kcpt's protobuf encoder test
// (src/engine/machinery/protobuf/encode-golden.test.ts): for every kind kcpt answers in protobuf, random objects
// filled by sigs.k8s.io/randfill, one JSON line each: the object as Go's encoding/json writes it (`json`) and as
// k8s.io/apimachinery's protobuf serializer writes the same object (`protobuf`, base64). The seeds are fixed, so a
// run reproduces the file byte for byte; regenerate after changing the kinds or the Kubernetes module versions:
//
//	cd test/peers/go && go run ./cmd/protobuf-golden ../../../src/engine/machinery/protobuf/testdata/golden.jsonl
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"
)

// samples per kind: enough for most optional fields to be both absent and present in some sample.
const samples = 4

type kind struct {
	gvk schema.GroupVersionKind
	obj func() runtime.Object
}

func gvk(group, version, k string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: k}
}

var kinds = []kind{
	{gvk("", "v1", "ConfigMap"), func() runtime.Object { return &corev1.ConfigMap{} }},
	{gvk("", "v1", "ConfigMapList"), func() runtime.Object { return &corev1.ConfigMapList{} }},
	{gvk("", "v1", "Secret"), func() runtime.Object { return &corev1.Secret{} }},
	{gvk("", "v1", "ServiceAccount"), func() runtime.Object { return &corev1.ServiceAccount{} }},
	{gvk("", "v1", "Namespace"), func() runtime.Object { return &corev1.Namespace{} }},
	{gvk("", "v1", "ResourceQuota"), func() runtime.Object { return &corev1.ResourceQuota{} }},
	{gvk("", "v1", "LimitRange"), func() runtime.Object { return &corev1.LimitRange{} }},
	{gvk("", "v1", "Event"), func() runtime.Object { return &corev1.Event{} }},
	{gvk("", "v1", "Service"), func() runtime.Object { return &corev1.Service{} }},
	{gvk("events.k8s.io", "v1", "Event"), func() runtime.Object { return &eventsv1.Event{} }},
	{gvk("rbac.authorization.k8s.io", "v1", "Role"), func() runtime.Object { return &rbacv1.Role{} }},
	{gvk("rbac.authorization.k8s.io", "v1", "ClusterRole"), func() runtime.Object { return &rbacv1.ClusterRole{} }},
	{gvk("rbac.authorization.k8s.io", "v1", "RoleBinding"), func() runtime.Object { return &rbacv1.RoleBinding{} }},
	{gvk("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"), func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }},
	{gvk("coordination.k8s.io", "v1", "Lease"), func() runtime.Object { return &coordinationv1.Lease{} }},
	{gvk("authorization.k8s.io", "v1", "SelfSubjectAccessReview"), func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }},
	{gvk("authorization.k8s.io", "v1", "SelfSubjectRulesReview"), func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }},
	{gvk("authorization.k8s.io", "v1", "SubjectAccessReview"), func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }},
	{gvk("authorization.k8s.io", "v1", "LocalSubjectAccessReview"), func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }},
	{gvk("authentication.k8s.io", "v1", "SelfSubjectReview"), func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }},
	{gvk("authentication.k8s.io", "v1", "TokenReview"), func() runtime.Object { return &authenticationv1.TokenReview{} }},
	{gvk("authentication.k8s.io", "v1", "TokenRequest"), func() runtime.Object { return &authenticationv1.TokenRequest{} }},
	{gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"), func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} }},
	{gvk("autoscaling", "v1", "Scale"), func() runtime.Object { return &autoscalingv1.Scale{} }},
	{gvk("", "v1", "Status"), func() runtime.Object { return &metav1.Status{} }},
	{gvk("meta.k8s.io", "v1", "PartialObjectMetadata"), func() runtime.Object { return &metav1.PartialObjectMetadata{} }},
	{gvk("meta.k8s.io", "v1", "PartialObjectMetadataList"), func() runtime.Object { return &metav1.PartialObjectMetadataList{} }},
}

// word is a short ASCII token: raw JSON values (RawExtension, JSON, FieldsV1) keep their bytes through Go's JSON,
// where <, > and & would come out escaped and JavaScript's JSON would not escape them.
func word(r *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 1+r.Intn(8))
	for i := range b {
		b[i] = letters[r.Intn(len(letters))]
	}
	return string(b)
}

func rawJSON(r *rand.Rand) []byte {
	switch r.Intn(5) {
	case 0:
		return []byte(fmt.Sprintf("%d", r.Intn(1000)-500))
	case 1:
		return []byte(fmt.Sprintf("%q", word(r)))
	case 2:
		return []byte(fmt.Sprintf("[%q,%d,true,null]", word(r), r.Intn(100)))
	case 3:
		return []byte(fmt.Sprintf(`{"%s":{"%s":%d},"k":false}`, word(r), word(r), r.Intn(100)))
	default:
		return []byte("true")
	}
}

var schemaDepth int

func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).Funcs(
		// JSON cannot carry integers beyond 2^53 exactly; kube objects do not hold such values.
		func(i *int64, c randfill.Continue) { *i = c.Int63n(1<<50) - 1<<49 },
		func(t *metav1.Time, c randfill.Continue) {
			if c.Intn(5) == 0 {
				*t = metav1.Time{}
				return
			}
			*t = metav1.Unix(c.Int63n(4_000_000_000), 0)
		},
		func(t *metav1.MicroTime, c randfill.Continue) {
			if c.Intn(5) == 0 {
				*t = metav1.MicroTime{}
				return
			}
			*t = metav1.NewMicroTime(metav1.Unix(c.Int63n(4_000_000_000), c.Int63n(1_000_000)*1000).Time)
		},
		func(q *resource.Quantity, c randfill.Continue) {
			units := []string{"", "m", "k", "Mi", "Gi", "e3"}
			*q = resource.MustParse(fmt.Sprintf("%d%s", c.Intn(100000), units[c.Intn(len(units))]))
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(c.Int31() - 1<<30)
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
		func(x *runtime.RawExtension, c randfill.Continue) { x.Raw = rawJSON(c.Rand) },
		func(x *apiextensionsv1.JSON, c randfill.Continue) { x.Raw = rawJSON(c.Rand) },
		func(f *metav1.FieldsV1, c randfill.Continue) {
			f.Raw = []byte(fmt.Sprintf(`{"f:metadata":{"f:labels":{"f:%s":{}}},"f:%s":{}}`, word(c.Rand), word(c.Rand)))
		},
		// Schemas nest in a dozen fields: stop after two levels.
		func(s *apiextensionsv1.JSONSchemaProps, c randfill.Continue) {
			schemaDepth++
			defer func() { schemaDepth-- }()
			if schemaDepth > 2 {
				*s = apiextensionsv1.JSONSchemaProps{Type: c.String(6), Description: c.String(6)}
				return
			}
			c.FillNoCustom(s)
		},
	)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: protobuf-golden <output file>")
		os.Exit(2)
	}
	var lines bytes.Buffer
	encoder := protobuf.NewSerializer(nil, nil)
	for k, kd := range kinds {
		for i := 0; i < samples; i++ {
			obj := kd.obj()
			filler(int64(1000*k + i)).Fill(obj)
			// Through Go's JSON first: the protobuf is then of the object a JSON client would be given (the JSON form
			// of a union or a Quantity is canonical), so both files describe one object.
			j, err := json.Marshal(obj)
			if err != nil {
				panic(err)
			}
			again := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
			if err := json.Unmarshal(j, again); err != nil {
				panic(fmt.Sprintf("%v: %v", kd.gvk, err))
			}
			again.GetObjectKind().SetGroupVersionKind(kd.gvk)
			j, err = json.Marshal(again)
			if err != nil {
				panic(err)
			}
			var pb bytes.Buffer
			if err := encoder.Encode(again, &pb); err != nil {
				panic(fmt.Sprintf("%v: %v", kd.gvk, err))
			}
			group := kd.gvk.Group
			if group == "" {
				group = "core"
			}
			line, err := json.Marshal(struct {
				Name     string          `json:"name"`
				JSON     json.RawMessage `json:"json"`
				Protobuf []byte          `json:"protobuf"`
			}{fmt.Sprintf("%s.%s.%s.%d", strings.Split(group, ".")[0], kd.gvk.Version, kd.gvk.Kind, i), j, pb.Bytes()})
			if err != nil {
				panic(err)
			}
			lines.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(os.Args[1], lines.Bytes(), 0o644); err != nil {
		panic(err)
	}
}
