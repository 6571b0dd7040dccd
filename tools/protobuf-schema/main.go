// Command protobuf-schema writes pkg/kube/protobuf/schema.generated.ts, the table the TypeScript
// protobuf decoder uses to turn Kubernetes wire messages into the JSON the API server would have
// sent for the same object.
//
// It reads the Go types of k8s.io/api by reflection instead of parsing generated.proto: JSON names,
// omitempty/omitzero, pointers and the types with their own JSON form exist only in the Go types,
// and the field numbers and wire types are in the same types' `protobuf:"..."` struct tags.
//
// Usage: go run . [output.ts] (default: ../../pkg/kube/protobuf/schema.generated.ts).
package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// Flag bits, as FieldFlag in pkg/kube/protobuf/wire-schema.ts.
const (
	flagRepeated  = 1
	flagPointer   = 2
	flagOmitEmpty = 4
	flagInline    = 8
	flagOmitZero  = 16
	flagMap       = 32
)

// specialTypes have a JSON form of their own (MarshalJSON) that the decoder implements by name, so
// the walk stops at them.
var specialTypes = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():          "Time",
	reflect.TypeFor[metav1.MicroTime]():     "MicroTime",
	reflect.TypeFor[metav1.Duration]():      "Duration",
	reflect.TypeFor[resource.Quantity]():    "Quantity",
	reflect.TypeFor[intstr.IntOrString]():   "IntOrString",
	reflect.TypeFor[runtime.RawExtension](): "RawExtension",
	reflect.TypeFor[metav1.FieldsV1]():      "FieldsV1",
}

// extraRoots are meta/v1 types the client-go scheme does not register as kinds but the API server
// sends: metadata-only responses, errors, watch frames and kubectl-style lists.
var extraRoots = []reflect.Type{
	reflect.TypeFor[metav1.PartialObjectMetadata](),
	reflect.TypeFor[metav1.PartialObjectMetadataList](),
	reflect.TypeFor[metav1.Status](),
	reflect.TypeFor[metav1.WatchEvent](),
	reflect.TypeFor[metav1.List](),
}

// metaPerGroupKinds are the meta/v1 kinds metav1.AddToGroupVersion registers into every group
// version; they are not resources of that group, so they stay out of the kinds table (Status is
// added once, as "v1/Status").
var metaPerGroupKinds = map[string]bool{
	"WatchEvent": true, "ListOptions": true, "GetOptions": true, "DeleteOptions": true,
	"CreateOptions": true, "UpdateOptions": true, "PatchOptions": true, "Status": true,
}

var metav1Path = reflect.TypeFor[metav1.ObjectMeta]().PkgPath()

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

type field struct {
	number int
	json   string
	flags  int
	typ    string
}

type generator struct {
	names    map[reflect.Type]string // struct and wrapper types already named (and walked)
	owners   map[string]reflect.Type // message name → Go type, to catch two types with one name
	messages map[string][]field
	wrappers []string // named slices emitted as a one-field message
	protos   *protoFiles
	errs     []string
	notes    []string // exported fields with no protobuf tag (present in JSON, absent on the wire)
}

func main() {
	out := filepath.Join("..", "..", "pkg", "kube", "protobuf", "schema.generated.ts")
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	version := moduleVersion("k8s.io/api")

	protos, err := newProtoFiles()
	if err != nil {
		die("%v", err)
	}
	g := &generator{names: map[reflect.Type]string{}, owners: map[string]reflect.Type{}, messages: map[string][]field{}, protos: protos}
	kinds := map[string]string{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue // in-memory only, never on the wire
		}
		name := g.message(t, gvk.String())
		if t.PkgPath() == metav1Path && metaPerGroupKinds[gvk.Kind] {
			continue
		}
		key := gvk.GroupVersion().String() + "/" + gvk.Kind
		if prev, ok := kinds[key]; ok && prev != name {
			g.fail(key, "registered as both %s and %s", prev, name)
		}
		kinds[key] = name
	}
	for _, t := range extraRoots {
		g.message(t, "extra root")
	}
	kinds["v1/Status"] = g.names[reflect.TypeFor[metav1.Status]()]
	kinds["meta.k8s.io/v1/PartialObjectMetadata"] = g.names[reflect.TypeFor[metav1.PartialObjectMetadata]()]
	kinds["meta.k8s.io/v1/PartialObjectMetadataList"] = g.names[reflect.TypeFor[metav1.PartialObjectMetadataList]()]

	for _, n := range g.notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	if len(g.errs) > 0 {
		slices.Sort(g.errs)
		fmt.Fprintf(os.Stderr, "protobuf-schema: %d type(s) do not fit the schema:\n  %s\n", len(g.errs), strings.Join(slices.Compact(g.errs), "\n  "))
		os.Exit(1)
	}
	slices.Sort(g.wrappers)
	for _, w := range g.wrappers {
		fmt.Fprintln(os.Stderr, "wrapper message for named slice:", w)
	}

	src := render(version, g.messages, kinds)
	// Write beside the target and rename, so a watcher never sees half a file.
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, src, 0o644); err != nil {
		die("%v", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		die("%v", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d bytes, %d messages, %d kinds\n", out, len(src), len(g.messages), len(kinds))
}

// moduleVersion reads the version of a dependency from the build info, so the header always
// matches go.mod.
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		die("no build info")
	}
	for _, d := range info.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	die("%s is not a dependency", path)
	return ""
}

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "protobuf-schema: "+format+"\n", args...)
	os.Exit(1)
}

func (g *generator) fail(where, format string, args ...any) {
	g.errs = append(g.errs, where+": "+fmt.Sprintf(format, args...))
}

// messageName names a Go type as the decoder does: its package path without the k8s.io/api/ or
// k8s.io/apimachinery/pkg/apis/ prefix, a dot, the type name.
func (g *generator) messageName(t reflect.Type, where string) (string, bool) {
	pkg := t.PkgPath()
	rest, ok := strings.CutPrefix(pkg, "k8s.io/api/")
	if !ok {
		rest, ok = strings.CutPrefix(pkg, "k8s.io/apimachinery/pkg/apis/")
	}
	if !ok || t.Name() == "" {
		g.fail(where, "type %s (package %q) is not from k8s.io/api or k8s.io/apimachinery/pkg/apis and not a special type", t, pkg)
		return "", false
	}
	name := rest + "." + t.Name()
	if prev, ok := g.owners[name]; ok && prev != t {
		g.fail(where, "message name %s used by both %s and %s", name, prev, t)
		return "", false
	}
	g.owners[name] = t
	return name, true
}

// checkMarshaler fails on a type that encoding/json would write through its own method: its
// fields would not describe its JSON.
func (g *generator) checkMarshaler(t reflect.Type, where string) {
	p := reflect.PointerTo(t)
	if t.Implements(jsonMarshaler) || p.Implements(jsonMarshaler) || t.Implements(textMarshaler) || p.Implements(textMarshaler) {
		g.fail(where, "%s has its own JSON form (MarshalJSON/MarshalText) but is not a special type", t)
	}
}

// isProtoMessage tells whether gogo generated a message for the type (it gets a Marshal method),
// which confirms the struct tags describe a real wire message.
func isProtoMessage(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName("Marshal")
	return ok
}

// message walks a struct type (once) and returns its message name.
func (g *generator) message(t reflect.Type, where string) string {
	if name, ok := g.names[t]; ok {
		return name
	}
	if t.Kind() != reflect.Struct {
		g.fail(where, "%s is a %s, not a struct", t, t.Kind())
		return ""
	}
	name, ok := g.messageName(t, where)
	if !ok {
		return ""
	}
	g.names[t] = name // before the fields, so self-referencing types terminate
	g.checkMarshaler(t, name)
	if !isProtoMessage(t) {
		g.fail(name, "%s has no generated Marshal method: not a protobuf message", t)
	}
	pm, err := g.protos.message(t.PkgPath(), t.Name())
	if err != nil {
		g.fail(name, "%v", err)
		return name
	}
	var fields []field
	seen := map[int]string{}
	for i := range t.NumField() {
		sf := t.Field(i)
		ptag, hasProto := sf.Tag.Lookup("protobuf")
		jtag := sf.Tag.Get("json")
		if jtag == "-" {
			continue
		}
		if !hasProto {
			// The embedded TypeMeta is expected (apiVersion/kind are not in the message); any other
			// such field would be in the JSON but never on the wire.
			if sf.IsExported() && sf.Type != reflect.TypeFor[metav1.TypeMeta]() {
				g.notes = append(g.notes, fmt.Sprintf("%s.%s has no protobuf tag: skipped", name, sf.Name))
			}
			continue
		}
		fw := name + "." + sf.Name
		if !sf.IsExported() {
			g.fail(fw, "unexported field with a protobuf tag")
			continue
		}
		f, ok := g.field(sf, ptag, jtag, pm, fw)
		if !ok {
			continue
		}
		if other, dup := seen[f.number]; dup {
			g.fail(fw, "field number %d also used by %s", f.number, other)
			continue
		}
		seen[f.number] = sf.Name
		fields = append(fields, f)
	}
	for n, pf := range pm.fields {
		if _, ok := seen[n]; !ok {
			// The decoder would meet a field it cannot name in JSON.
			g.fail(name, "generated.proto field %s = %d has no Go field with that protobuf tag", pf.name, n)
		}
	}
	slices.SortFunc(fields, func(a, b field) int { return a.number - b.number })
	g.messages[name] = fields
	return name
}

// field maps one struct field to its schema tuple and checks it against generated.proto.
func (g *generator) field(sf reflect.StructField, ptag, jtag string, pm *protoMessage, where string) (field, bool) {
	var f field
	number, pname, ok := parseProtoTag(ptag)
	if !ok {
		g.fail(where, "cannot parse protobuf tag %q", ptag)
		return f, false
	}
	f.number = number
	if pname == "" {
		// Without name=, go-to-protobuf names the proto field after the Go field.
		pname = strings.ToLower(sf.Name[:1]) + sf.Name[1:]
	}

	jname, jopts, _ := strings.Cut(jtag, ",")
	f.json = jname
	for opt := range strings.SplitSeq(jopts, ",") {
		switch opt {
		case "":
		case "omitempty":
			f.flags |= flagOmitEmpty
		case "omitzero":
			f.flags |= flagOmitZero
		case "inline":
			if !sf.Anonymous {
				// encoding/json ignores "inline"; only embedding flattens.
				g.fail(where, "json inline on a field that is not embedded")
				return f, false
			}
		default:
			g.fail(where, "json tag option %q not understood", opt)
			return f, false
		}
	}
	if jname == "" {
		if !sf.Anonymous {
			g.fail(where, "no JSON name (encoding/json would use the Go name)")
			return f, false
		}
		// An embedded struct without a JSON name: a nested message on the wire, flattened in JSON.
		f.flags |= flagInline
	}

	t := sf.Type
	if t.Kind() == reflect.Pointer {
		f.flags |= flagPointer
		t = t.Elem()
		if k := t.Kind(); k == reflect.Pointer || k == reflect.Map || (k == reflect.Slice && !isBytes(t)) {
			g.fail(where, "pointer to %s not supported", t)
			return f, false
		}
	}
	if f.flags&flagInline != 0 && t.Kind() != reflect.Struct {
		g.fail(where, "embedded %s without a JSON name is not a struct", t)
		return f, false
	}

	want := protoField{label: "optional", name: pname, number: number}
	switch {
	case specialTypes[t] != "" || isBytes(t):
		f.typ, want.typ, ok = g.element(t, where)
	case t.Kind() == reflect.Slice && t.Name() != "":
		// A named slice is its own message to go-to-protobuf: {repeated items = 1}.
		f.typ, want.typ, ok = g.wrapper(t, where)
	case t.Kind() == reflect.Slice:
		f.flags |= flagRepeated
		want.label = "repeated"
		e := t.Elem()
		if k := e.Kind(); k == reflect.Pointer || k == reflect.Map || (k == reflect.Slice && !isBytes(e)) {
			g.fail(where, "slice of %s not supported", e)
			return f, false
		}
		f.typ, want.typ, ok = g.element(e, where)
	case t.Kind() == reflect.Map:
		f.flags |= flagMap
		want.label, want.key = "map", "string"
		g.checkMarshaler(t, where)
		if t.Key().Kind() != reflect.String {
			g.fail(where, "map key %s is not a string kind", t.Key())
			return f, false
		}
		g.checkMarshaler(t.Key(), where)
		v := t.Elem()
		switch {
		case v.Kind() == reflect.Slice && !isBytes(v) && v.Name() != "":
			// A map value cannot be repeated in protobuf: the named slice is a message wrapper.
			f.typ, want.typ, ok = g.wrapper(v, where)
		case v.Kind() == reflect.Pointer || v.Kind() == reflect.Map || (v.Kind() == reflect.Slice && !isBytes(v)):
			g.fail(where, "map value %s not supported", v)
			return f, false
		default:
			f.typ, want.typ, ok = g.element(v, where)
		}
	default:
		f.typ, want.typ, ok = g.element(t, where)
	}
	if !ok {
		return f, false
	}
	if got, found := pm.fields[number]; !found {
		g.fail(where, "field number %d is not in generated.proto", number)
		return f, false
	} else if got != want {
		if strings.HasPrefix(got.typ, "sint") {
			g.fail(where, "generated.proto says zigzag %s: the schema has no way to say so", got.typ)
		} else {
			g.fail(where, "generated.proto has %+v, the Go type implies %+v", got, want)
		}
		return f, false
	}
	return f, true
}

// element maps a single (non-repeated) value type to its schema type (a scalar, special or message
// name) and the proto type go-to-protobuf gives it.
func (g *generator) element(t reflect.Type, where string) (typ, proto string, ok bool) {
	if s := specialTypes[t]; s != "" {
		return s, protoName(t.PkgPath(), t.Name()), true
	}
	g.checkMarshaler(t, where)
	switch t.Kind() {
	case reflect.Struct:
		name := g.message(t, where)
		return name, protoName(t.PkgPath(), t.Name()), name != ""
	case reflect.String:
		return "string", "string", true
	case reflect.Bool:
		return "bool", "bool", true
	case reflect.Int32:
		return "int32", "int32", true
	case reflect.Int64, reflect.Int:
		return "int64", "int64", true
	case reflect.Uint32:
		return "uint32", "uint32", true
	case reflect.Uint64:
		return "uint64", "uint64", true
	case reflect.Float64:
		return "double", "double", true
	case reflect.Float32:
		return "float", "float", true
	case reflect.Slice:
		if isBytes(t) {
			return "bytes", "bytes", true
		}
	}
	g.fail(where, "Go type %s (kind %s) has no wire mapping", t, t.Kind())
	return "", "", false
}

// wrapper emits a synthetic message for a named slice go-to-protobuf encodes as
// `{repeated items = 1}`; its one field has no JSON name because the JSON form is the bare array.
func (g *generator) wrapper(t reflect.Type, where string) (typ, proto string, ok bool) {
	proto = protoName(t.PkgPath(), t.Name())
	if name, ok := g.names[t]; ok {
		return name, proto, true
	}
	g.checkMarshaler(t, where)
	if !isProtoMessage(t) {
		g.fail(where, "named slice %s is not a generated protobuf message", t)
		return "", "", false
	}
	name, ok := g.messageName(t, where)
	if !ok {
		return "", "", false
	}
	item, itemProto, ok := g.element(t.Elem(), where)
	if !ok {
		return "", "", false
	}
	pm, err := g.protos.message(t.PkgPath(), t.Name())
	if err != nil {
		g.fail(where, "%v", err)
		return "", "", false
	}
	want := protoField{label: "repeated", typ: itemProto, name: "items", number: 1}
	if len(pm.fields) != 1 || pm.fields[1] != want {
		g.fail(where, "named slice %s: generated.proto message is %+v, want only %+v", t, pm.fields, want)
		return "", "", false
	}
	g.names[t] = name
	g.messages[name] = []field{{number: 1, json: "", flags: flagRepeated, typ: item}}
	g.wrappers = append(g.wrappers, fmt.Sprintf("%s (%s)", name, t))
	return name, proto, true
}

func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

// parseProtoTag reads the field number and name (if any) from a `wire,number,label,name=...` struct tag;
// the wire and label parts are ignored (see proto.go).
func parseProtoTag(tag string) (number int, name string, ok bool) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0, "", false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 {
		return 0, "", false
	}
	for _, p := range parts[2:] {
		if v, found := strings.CutPrefix(p, "name="); found {
			return n, v, true
		}
	}
	return n, "", true
}

// render prints the TypeScript module: sorted, one message and one kind per line, so a version
// bump shows as a readable diff.
func render(version string, messages map[string][]field, kinds map[string]string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by tools/protobuf-schema from k8s.io/api %s: do not edit.\n", version)
	b.WriteString("// Regenerate with `bash tools/protobuf-schema/generate.sh` (the version comes from its go.mod).\n")
	b.WriteString("import type { WireSchema } from \"./wire-schema.ts\";\n\n")
	b.WriteString("export const kubernetesSchema: WireSchema = {\n")
	fmt.Fprintf(&b, "  version: %s,\n", quote(version))
	b.WriteString("  messages: {\n")
	for _, name := range slices.Sorted(maps.Keys(messages)) {
		fmt.Fprintf(&b, "    %s: [", quote(name))
		for i, f := range messages[name] {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "[%d, %s, %d, %s]", f.number, quote(f.json), f.flags, quote(f.typ))
		}
		b.WriteString("],\n")
	}
	b.WriteString("  },\n  kinds: {\n")
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		fmt.Fprintf(&b, "    %s: %s,\n", quote(k), quote(kinds[k]))
	}
	b.WriteString("  },\n};\n")
	return []byte(b.String())
}

// quote writes a string literal valid in both JSON and TypeScript.
func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}
