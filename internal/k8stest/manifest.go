//go:build k8s

package k8stest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Object is one document of a manifest, as JSON, with what it takes to
// address it through the REST API.
type Object struct {
	APIVersion, Kind string
	Namespace, Name  string
	JSON             []byte
	resource         resource
}

func (o Object) String() string { return o.Kind + " " + o.Namespace + "/" + o.Name }

// Path is the object's REST path (/api/v1/namespaces/NS/secrets/NAME).
func (o Object) Path() string {
	return o.resource.collection(o.Namespace) + "/" + url.PathEscape(o.Name)
}

// docSeparator is a line that starts a new YAML document.
var docSeparator = regexp.MustCompile(`^---(\s.*)?$`)

// SplitYAML splits a multi-document YAML stream at its "---" lines and
// converts each document to JSON; empty documents (only comments or
// blanks) are left out.
func SplitYAML(data []byte) ([][]byte, error) {
	var docs [][]byte
	var cur bytes.Buffer
	flush := func() error {
		defer cur.Reset()
		j, err := yaml.YAMLToJSON(cur.Bytes())
		if err != nil {
			return fmt.Errorf("document %d: %w", len(docs)+1, err)
		}
		j = bytes.TrimSpace(j)
		if len(j) == 0 || string(j) == "null" {
			return nil
		}
		if j[0] != '{' {
			return fmt.Errorf("document %d is not a mapping", len(docs)+1)
		}
		docs = append(docs, j)
		return nil
	}
	for line := range bytes.Lines(data) {
		l := strings.TrimRight(string(line), "\r\n")
		if docSeparator.MatchString(l) || l == "..." {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur.Write(line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return docs, nil
}

// ParseManifests splits a multi-document YAML stream into objects, in
// their order, and finds the REST resource of each through the API
// server's discovery. Objects of a namespaced kind without a namespace get
// namespace.
func (c *Client) ParseManifests(ctx context.Context, data []byte, namespace string) ([]Object, error) {
	docs, err := SplitYAML(data)
	if err != nil {
		return nil, err
	}
	var out []Object
	for i, doc := range docs {
		var meta metav1.PartialObjectMetadata
		if err := json.Unmarshal(doc, &meta); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if meta.APIVersion == "" || meta.Kind == "" || meta.Name == "" {
			return nil, fmt.Errorf("document %d: apiVersion, kind and metadata.name are required (generateName is not supported)", i+1)
		}
		res, err := c.resourceFor(ctx, meta.APIVersion, meta.Kind)
		if err != nil {
			return nil, fmt.Errorf("document %d (%s %s): %w", i+1, meta.Kind, meta.Name, err)
		}
		ns := meta.Namespace
		if !res.namespaced {
			ns = ""
		} else if ns == "" {
			ns = namespace
		}
		out = append(out, Object{APIVersion: meta.APIVersion, Kind: meta.Kind, Namespace: ns, Name: meta.Name, JSON: doc, resource: res})
	}
	return out, nil
}

// Create POSTs the object with server-side strict field validation: an
// unknown or duplicate field fails as the API server's validation and
// admission would fail it. out, when not nil, receives the created object.
func (c *Client) Create(ctx context.Context, o Object, out any) error {
	path := o.resource.collection(o.Namespace) + "?fieldValidation=Strict"
	return c.Do(ctx, http.MethodPost, path, "", o.JSON, out)
}

// Delete deletes the object (propagation Background; nothing here deletes
// dependents, see RunJob) and waits until it is gone. An object that is
// not there is no error.
func (c *Client) Delete(ctx context.Context, path string) error {
	opts := metav1.DeleteOptions{PropagationPolicy: new(metav1.DeletePropagationBackground)}
	err := c.Do(ctx, http.MethodDelete, path, "", opts, nil)
	if IsStatus(err, http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for {
		err := c.Get(ctx, path, nil)
		if IsStatus(err, http.StatusNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s is still there: %w", path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// resource is a REST resource: the plural name under its group version's
// prefix (/api/v1, /apis/batch/v1).
type resource struct {
	prefix, name string
	namespaced   bool
}

func (r resource) collection(namespace string) string {
	if r.namespaced {
		return r.prefix + "/namespaces/" + url.PathEscape(namespace) + "/" + r.name
	}
	return r.prefix + "/" + r.name
}

var discovery struct {
	sync.Mutex
	lists map[string]*metav1.APIResourceList // by prefix
}

// resourceFor finds the resource of kind in apiVersion through discovery
// (GET /api/v1, /apis/GROUP/VERSION).
func (c *Client) resourceFor(ctx context.Context, apiVersion, kind string) (resource, error) {
	prefix := "/apis/" + apiVersion
	if !strings.Contains(apiVersion, "/") {
		prefix = "/api/" + apiVersion
	}
	discovery.Lock()
	defer discovery.Unlock()
	list := discovery.lists[prefix]
	if list == nil {
		list = new(metav1.APIResourceList)
		if err := c.Get(ctx, prefix, list); err != nil {
			return resource{}, fmt.Errorf("discovery of %s: %w", apiVersion, err)
		}
		if discovery.lists == nil {
			discovery.lists = map[string]*metav1.APIResourceList{}
		}
		discovery.lists[prefix] = list
	}
	for _, r := range list.APIResources {
		if r.Kind == kind && !strings.Contains(r.Name, "/") {
			return resource{prefix: prefix, name: r.Name, namespaced: r.Namespaced}, nil
		}
	}
	return resource{}, fmt.Errorf("the API server serves no kind %s in %s", kind, apiVersion)
}
