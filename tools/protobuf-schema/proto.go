package main

// The struct tags' wire part is not trustworthy: go-to-protobuf takes only the field number from
// an existing tag and derives the proto type from the Go type, so many hand-written tags still say
// "bytes" for a *int32 or "rep" for a string. generated.proto is what the Marshal code was
// generated from, so each field is checked against it instead.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

type protoField struct {
	label  string // "optional", "repeated" or "map"
	typ    string // scalar name or fully qualified message name (the value type for a map)
	key    string // map key type
	name   string
	number int
}

type protoMessage struct {
	fields map[int]protoField
}

type protoFiles struct {
	dirs     map[string]string        // Go package path → directory
	loaded   map[string]bool          // Go package path → generated.proto parsed
	messages map[string]*protoMessage // fully qualified proto name → message
}

// newProtoFiles asks the go command where the API packages live in the module cache.
func newProtoFiles() (*protoFiles, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}", "k8s.io/api/...", "k8s.io/apimachinery/pkg/apis/meta/v1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	p := &protoFiles{dirs: map[string]string{}, loaded: map[string]bool{}, messages: map[string]*protoMessage{}}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		pkg, dir, _ := strings.Cut(line, "\t")
		p.dirs[pkg] = dir
	}
	return p, nil
}

// protoName is the fully qualified proto name go-to-protobuf gives a Go type.
func protoName(pkgPath, name string) string {
	return strings.ReplaceAll(pkgPath, "/", ".") + "." + name
}

// message returns the proto message for a Go type, parsing its package's generated.proto once.
func (p *protoFiles) message(pkgPath, name string) (*protoMessage, error) {
	if !p.loaded[pkgPath] {
		p.loaded[pkgPath] = true
		dir, ok := p.dirs[pkgPath]
		if !ok {
			return nil, fmt.Errorf("package %s not found by go list", pkgPath)
		}
		src, err := os.ReadFile(filepath.Join(dir, "generated.proto"))
		if err != nil {
			return nil, err
		}
		if err := p.parse(string(src)); err != nil {
			return nil, fmt.Errorf("%s/generated.proto: %w", dir, err)
		}
	}
	m, ok := p.messages[protoName(pkgPath, name)]
	if !ok {
		return nil, fmt.Errorf("no message %s in generated.proto", protoName(pkgPath, name))
	}
	return m, nil
}

var (
	protoComments = regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`)
	protoTokens   = regexp.MustCompile(`"[^"]*"|\.?[A-Za-z_][A-Za-z0-9_.]*|[0-9]+|\S`)
)

// parse reads the proto2 subset go-to-protobuf writes: syntax, package, import, option and flat
// messages of optional/repeated/map fields. Anything else is an error, not a silent skip.
func (p *protoFiles) parse(src string) error {
	toks := protoTokens.FindAllString(protoComments.ReplaceAllString(src, " "), -1)
	i := 0
	next := func() string {
		if i >= len(toks) {
			return ""
		}
		i++
		return toks[i-1]
	}
	expect := func(want string) error {
		if got := next(); got != want {
			return fmt.Errorf("expected %q, got %q (token %d)", want, got, i)
		}
		return nil
	}
	skipStatement := func() {
		for i < len(toks) && toks[i] != ";" {
			i++
		}
		i++
	}
	pkg := ""
	qualify := func(t string) string {
		switch t {
		case "string", "bool", "int32", "int64", "uint32", "uint64", "double", "float", "bytes",
			"sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64":
			return t
		}
		if full, ok := strings.CutPrefix(t, "."); ok {
			return full // a leading dot: already fully qualified
		}
		if strings.Contains(t, ".") {
			return t // k8s protos qualify every foreign type in full
		}
		return pkg + "." + t
	}
	for i < len(toks) {
		switch tok := next(); tok {
		case "syntax", "import", "option":
			skipStatement()
		case "package":
			pkg = next()
			if err := expect(";"); err != nil {
				return err
			}
		case "message":
			name := next()
			if err := expect("{"); err != nil {
				return err
			}
			m := &protoMessage{fields: map[int]protoField{}}
			p.messages[pkg+"."+name] = m
			for i < len(toks) && toks[i] != "}" {
				var f protoField
				switch lab := next(); lab {
				case "optional", "repeated":
					f.label, f.typ = lab, qualify(next())
				case "map":
					f.label = "map"
					if err := expect("<"); err != nil {
						return err
					}
					f.key = qualify(next())
					if err := expect(","); err != nil {
						return err
					}
					f.typ = qualify(next())
					if err := expect(">"); err != nil {
						return err
					}
				default:
					return fmt.Errorf("message %s: unsupported %q", name, lab)
				}
				f.name = next()
				if err := expect("="); err != nil {
					return err
				}
				n, err := strconv.Atoi(next())
				if err != nil {
					return fmt.Errorf("message %s field %s: %w", name, f.name, err)
				}
				f.number = n
				if t := next(); t == "[" { // field options such as [default = ...]
					for i < len(toks) && toks[i] != "]" {
						i++
					}
					i++
					t = next()
					if t != ";" {
						return fmt.Errorf("message %s field %s: expected ;", name, f.name)
					}
				} else if t != ";" {
					return fmt.Errorf("message %s field %s: expected ;, got %q", name, f.name, t)
				}
				if _, dup := m.fields[n]; dup {
					return fmt.Errorf("message %s: field number %d twice", name, n)
				}
				m.fields[n] = f
			}
			if err := expect("}"); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unsupported top-level %q", tok)
		}
	}
	return nil
}
