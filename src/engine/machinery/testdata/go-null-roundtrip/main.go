// Regenerates ../go-null-roundtrip.json: for every field (and slice or map element) of the built-in kinds kcpt
// decodes, a body with that field null, decoded by apimachinery's JSON serializer into the Go type of kube 1.31
// (k8s.io/api v0.31.6, as close to kcpt's 1.32 as the module cache holds; kcp sdk v0.27.1) and encoded again; the
// value at the path afterwards. Run it in a module with those versions, e.g. with test/peers/tools/kcp-plugins'
// go.mod and go.sum (module renamed) and GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off:
//
//	go run . | python3 dedupe.py > ../go-null-roundtrip.json
//
// where the dedupe keeps each (kind, Go struct, field) once, at its shallowest path, as [path] for an omitted field
// or [path, value].
package main

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	stdjson "encoding/json"
	kcpcorev1alpha1 "github.com/kcp-dev/kcp/sdk/apis/core/v1alpha1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/kubernetes/scheme"
)

var _ = utiljson.Unmarshal

type kind struct {
	apiVersion, kind string
	obj              runtime.Object
}

type step struct {
	name string // json field name; "[]" list item; "{}" map value
}

type row struct {
	Kind   string             `json:"kind"`
	Struct string             `json:"struct"`
	Path   string             `json:"path"`
	Body   stdjson.RawMessage `json:"body"`
	Result stdjson.RawMessage `json:"result"` // the value at path after the round trip; absent → "absent"
	Absent bool               `json:"absent,omitempty"`
}

func main() {
	kinds := []kind{
		{"v1", "Namespace", &corev1.Namespace{}},
		{"v1", "ConfigMap", &corev1.ConfigMap{}},
		{"v1", "Secret", &corev1.Secret{}},
		{"v1", "ServiceAccount", &corev1.ServiceAccount{}},
		{"v1", "Event", &corev1.Event{}},
		{"v1", "LimitRange", &corev1.LimitRange{}},
		{"v1", "ResourceQuota", &corev1.ResourceQuota{}},
		{"rbac.authorization.k8s.io/v1", "Role", &rbacv1.Role{}},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", &rbacv1.ClusterRole{}},
		{"rbac.authorization.k8s.io/v1", "RoleBinding", &rbacv1.RoleBinding{}},
		{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &rbacv1.ClusterRoleBinding{}},
		{"coordination.k8s.io/v1", "Lease", &coordinationv1.Lease{}},
		{"events.k8s.io/v1", "Event", &eventsv1.Event{}},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", &apiextv1.CustomResourceDefinition{}},
		{"core.kcp.io/v1alpha1", "LogicalCluster", &kcpcorev1alpha1.LogicalCluster{}},
	}
	apiextinstall.Install(scheme.Scheme)
	_ = kcpcorev1alpha1.AddToScheme(scheme.Scheme)
	ser := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, kjson.SerializerOptions{})
	enc := jsonEncoder()
	for _, k := range kinds {
		t := reflect.TypeOf(k.obj).Elem()
		walk(t, nil, 0, func(path []string, structName string) {
			body := build(k, path)
			raw, _ := jsonMarshal(body)
			into := reflect.New(t).Interface().(runtime.Object)
			_, _, err := ser.Decode(raw, nil, into)
			r := row{Kind: k.apiVersion + "/" + k.kind, Struct: structName, Path: strings.Join(path, "."), Body: raw}
			if err != nil {
				r.Result, _ = jsonMarshal(map[string]string{"error": err.Error()})
			} else {
				out, _ := jsonMarshal(into)
				var generic interface{}
				_ = utiljson.Unmarshal(out, &generic)
				v, ok := at(generic, path)
				if !ok {
					r.Absent = true
				} else {
					r.Result, _ = jsonMarshal(v)
				}
			}
			enc.Encode(r)
		})
	}
}

func jsonEncoder() *jsonEnc { return &jsonEnc{} }

type jsonEnc struct{}

func (jsonEnc) Encode(r row) {
	b, _ := jsonMarshal(r)
	os.Stdout.Write(append(b, '\n'))
}

var special = map[string]bool{"Time": true, "MicroTime": true, "Quantity": true, "IntOrString": true, "RawExtension": true, "FieldsV1": true, "JSON": true, "JSONSchemaPropsOrArray": true, "JSONSchemaPropsOrBool": true, "JSONSchemaPropsOrStringArray": true}

// walk calls visit for every field path (list items and map values as "[]" and "{}").
func walk(t reflect.Type, path []string, depth int, visit func([]string, string)) {
	if depth > 7 {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || special[t.Name()] {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name := strings.Split(tag, ",")[0]
		if f.Anonymous && (name == "" || strings.Contains(tag, "inline")) {
			if f.Type.Name() == "TypeMeta" {
				continue
			}
			walk(f.Type, path, depth, visit)
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		p := append(append([]string{}, path...), name)
		visit(p, t.Name())
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			walk(ft, p, depth+1, visit)
		case reflect.Slice:
			if ft.Elem().Kind() == reflect.Uint8 {
				continue
			}
			visit(append(p, "[]"), t.Name())
			walk(ft.Elem(), append(p, "[]"), depth+1, visit)
		case reflect.Map:
			visit(append(p, "{}"), t.Name())
			walk(ft.Elem(), append(p, "{}"), depth+1, visit)
		}
	}
}

func build(k kind, path []string) map[string]interface{} {
	root := map[string]interface{}{"apiVersion": k.apiVersion, "kind": k.kind}
	var cur interface{} = root
	for i, p := range path {
		last := i == len(path)-1
		var next interface{}
		if !last {
			if path[i+1] == "[]" {
				next = []interface{}{}
			} else {
				next = map[string]interface{}{}
			}
		}
		switch c := cur.(type) {
		case map[string]interface{}:
			key := p
			if p == "{}" {
				key = "k"
			}
			if last {
				c[key] = nil
			} else if path[i+1] == "[]" {
				// a list holding one element, filled below
				c[key] = nil
				holder := &listHolder{m: c, key: key}
				cur = holder
				continue
			} else {
				c[key] = next
				cur = next
			}
		case *listHolder:
			// p == "[]": one element
			if last {
				c.m[c.key] = []interface{}{nil}
				continue
			}
			elem := map[string]interface{}{}
			c.m[c.key] = []interface{}{elem}
			cur = elem
		}
	}
	return root
}

type listHolder struct {
	m   map[string]interface{}
	key string
}

func at(v interface{}, path []string) (interface{}, bool) {
	cur := v
	for _, p := range path {
		switch p {
		case "[]":
			l, ok := cur.([]interface{})
			if !ok || len(l) == 0 {
				return nil, false
			}
			cur = l[0]
		default:
			m, ok := cur.(map[string]interface{})
			if !ok {
				return nil, false
			}
			key := p
			if p == "{}" {
				key = "k"
			}
			x, ok := m[key]
			if !ok {
				return nil, false
			}
			cur = x
		}
	}
	return cur, true
}

func jsonMarshal(v interface{}) ([]byte, error) { return utiljson.Marshal(v) }

var _ = fmt.Sprint
